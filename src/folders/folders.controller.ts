import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { CreateFolderDto, FolderDto, UpdateFolderDto } from './folders.dto';
import { FoldersService } from './folders.service';

/** HTTP for folders: list, create, update (ext), delete. */
@ApiTags('Folders')
@Controller('api/v1')
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  /** spec: List folders. */
  @Get('workspaces/:workspace_id/folders')
  @Authenticated('folders:read', 'workspace.read')
  @ApiOperation({
    summary: 'List folders',
    description: 'Folders of the workspace, ordered by position, then name, then id. An access-restricted member receives only the folders granted to them.',
  })
  @ApiOkResponse({ type: [FolderDto] })
  listFolders(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<RawJson<FolderDto[]>> {
    return this.folders.listFolders(caller, id);
  }

  /** D39, D45: get folder. */
  @Get('folders/:folder_id')
  @Authenticated('folders:read', 'folder.read')
  @ApiOperation({
    summary: 'Get folder',
    description: 'An access-restricted member may read a folder granted to them or holding a list permitted to them.',
  })
  @ApiOkResponse({ type: FolderDto })
  getFolder(@CurrentCaller() caller: Caller, @PathId('folder') id: number): Promise<RawJson<FolderDto>> {
    return this.folders.getFolder(caller, id);
  }

  /** spec: Create folder. */
  @Post('folders')
  @Authenticated('folders:write', 'folder.create')
  @ApiOperation({
    summary: 'Create folder',
    description: 'Adds a folder at position max + 1 of the workspace. `color` defaults to `blue`, `icon` to null.',
  })
  @ApiValidatedBody(CreateFolderDto)
  @ApiCreatedResponse({ type: FolderDto })
  createFolder(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<FolderDto> {
    return this.folders.createFolder(caller, body);
  }

  /** D1 (ext): update folder. */
  @Patch('folders/:folder_id')
  @Authenticated('folders:write', 'folder.edit')
  @ApiOperation({
    summary: 'Update folder',
    description: 'Renames, re-colours or repositions a folder; only the fields sent change. Returns the whole folder.',
  })
  @ApiValidatedBody(UpdateFolderDto)
  @ApiOkResponse({ type: FolderDto })
  updateFolder(@CurrentCaller() caller: Caller, @PathId('folder') id: number, @Body() body: unknown): Promise<FolderDto> {
    return this.folders.updateFolder(caller, id, body);
  }

  /** spec: Delete folder. */
  @Delete('folders/:folder_id')
  @HttpCode(204)
  @Authenticated('folders:write', 'folder.delete')
  @ApiOperation({
    summary: 'Delete folder',
    description: 'Irreversible: deletes the folder with all its lists and their tasks, in one transaction.',
  })
  @ApiNoContentResponse({ description: 'Deleted; empty body' })
  async deleteFolder(@CurrentCaller() caller: Caller, @PathId('folder') id: number): Promise<void> {
    await this.folders.deleteFolder(caller, id);
  }
}
