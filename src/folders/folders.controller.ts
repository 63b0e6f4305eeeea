import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { nulMessages } from '../common/validation/body';
import { CreateFolderDto, FolderDto, UpdateFolderDto } from './folders.dto';
import { FoldersService } from './folders.service';

/** D7: what any route with a JSON body can answer before the handler runs. */
const BODY_400 = ['Invalid JSON body', 'Request body must be a JSON object'];
const BODY_413 = ['Request body is too large'];
const BODY_415 = ['Content-Type must be application/json'];
const ATTRIBUTE_400 = ['icon must be a string', 'icon must be at most 255 characters', 'color must be a string', 'color must be at most 255 characters'];

/** HTTP for folders: list, create, update (ext), delete. */
@ApiTags('Folders')
@Controller('api/v1')
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  /** spec: List folders. */
  @Get('workspaces/:workspace_id/folders')
  @Authenticated('folders:read')
  @ApiOperation({
    summary: 'List folders',
    description: 'Folders of the workspace, ordered by position, then name, then id. An access-restricted member receives only the folders granted to them. Scope `folders:read`; any member.',
  })
  @ApiOkResponse({ type: [FolderDto] })
  @ApiErrors({
    400: ['Invalid workspace ID'],
    403: ["Scope 'folders:read' is required for this endpoint"],
    404: ['Workspace not found'],
  })
  listFolders(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<RawJson<FolderDto[]>> {
    return this.folders.listFolders(caller, id);
  }

  /** spec: Create folder. */
  @Post('folders')
  @Authenticated('folders:write')
  @ApiOperation({
    summary: 'Create folder',
    description:
      'Adds a folder at position max + 1 of the workspace. `color` defaults to `blue`, `icon` to null. Scope `folders:write`; owners, admins and members (not viewers, not access-restricted members).',
  })
  @ApiBody({ type: CreateFolderDto })
  @ApiCreatedResponse({ type: FolderDto })
  @ApiErrors({
    400: ['workspace_id is required', 'name is required', 'name must be at most 255 characters', ...ATTRIBUTE_400, ...nulMessages('name', 'icon', 'color'), ...BODY_400],
    403: ["Scope 'folders:write' is required for this endpoint", 'Viewers cannot create folders', 'Access denied'],
    404: ['Workspace not found'],
    413: BODY_413,
    415: BODY_415,
  })
  createFolder(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<FolderDto> {
    return this.folders.createFolder(caller, body);
  }

  /** D1 (ext): update folder. */
  @Patch('folders/:folder_id')
  @Authenticated('folders:write')
  @ApiOperation({
    summary: 'Update folder',
    description:
      'Renames, re-colours or repositions a folder; only the fields sent change. Returns the whole folder. Scope `folders:write`; owners, admins and members (not viewers); an access-restricted member only on folders granted to them.',
  })
  @ApiBody({ type: UpdateFolderDto })
  @ApiOkResponse({ type: FolderDto })
  @ApiErrors({
    400: ['Invalid folder ID', 'name must be a string', 'name cannot be empty', 'name must be at most 255 characters', ...ATTRIBUTE_400, ...nulMessages('name', 'icon', 'color'), 'position must be an integer', ...BODY_400],
    403: ["Scope 'folders:write' is required for this endpoint", 'Viewers cannot edit folders', 'Access denied'],
    404: ['Folder not found'],
    413: BODY_413,
    415: BODY_415,
  })
  updateFolder(@CurrentCaller() caller: Caller, @PathId('folder') id: number, @Body() body: unknown): Promise<FolderDto> {
    return this.folders.updateFolder(caller, id, body);
  }

  /** spec: Delete folder. */
  @Delete('folders/:folder_id')
  @HttpCode(204)
  @Authenticated('folders:write')
  @ApiOperation({
    summary: 'Delete folder',
    description: 'Irreversible: deletes the folder with all its lists and their tasks, in one transaction. Scope `folders:write`; owners and admins only.',
  })
  @ApiNoContentResponse({ description: 'Deleted; empty body' })
  @ApiErrors({
    400: ['Invalid folder ID'],
    403: ["Scope 'folders:write' is required for this endpoint", 'Only owners and admins can delete folders'],
    404: ['Folder not found'],
  })
  async deleteFolder(@CurrentCaller() caller: Caller, @PathId('folder') id: number): Promise<void> {
    await this.folders.deleteFolder(caller, id);
  }
}
