import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { NOT_FOUND } from '../common/access/access.policy';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { CreateListDto, ListDto, UpdateListDto } from './lists.dto';
import { ListsService } from './lists.service';

/** HTTP for lists: lists of a folder (ext), create, update (ext), delete (ext). */
@ApiTags('Lists')
@Controller('api/v1')
export class ListsController {
  constructor(private readonly lists: ListsService) {}

  /** D1 (ext): lists of a folder. */
  @Get('folders/:folder_id/lists')
  @Authenticated('folders:read', 'folder.read')
  @ApiOperation({
    summary: 'List the lists of a folder',
    description:
      'Lists of the folder, ordered by position, then name, then id. An access-restricted member receives only the lists permitted to them, ' +
      'of a folder granted to them or holding such a list.',
  })
  @ApiOkResponse({ type: [ListDto] })
  listFolderLists(@CurrentCaller() caller: Caller, @PathId('folder') id: number): Promise<ListDto[]> {
    return this.lists.listFolderLists(caller, id);
  }

  /** D39, D45: get list. */
  @Get('lists/:list_id')
  @Authenticated('folders:read', 'list.read')
  @ApiOperation({ summary: 'Get list', description: 'An access-restricted member may read only the lists permitted to them.' })
  @ApiOkResponse({ type: ListDto })
  getList(@CurrentCaller() caller: Caller, @PathId('list') id: number): Promise<RawJson<ListDto>> {
    return this.lists.getList(caller, id);
  }

  /** spec: Create list. */
  @Post('lists')
  @Authenticated('lists:write', 'list.create')
  @ApiOperation({
    summary: 'Create list',
    description: 'Adds a list to a folder of the workspace, at position max + 1 over all lists of the workspace. `color` defaults to `gray`, `icon` to null.',
  })
  @ApiValidatedBody(CreateListDto)
  @ApiCreatedResponse({ type: ListDto })
  @ApiErrors({
    404: [NOT_FOUND.workspace, NOT_FOUND.list],
  })
  createList(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<ListDto> {
    return this.lists.createList(caller, body);
  }

  /** D1 (ext): update list. */
  @Patch('lists/:list_id')
  @Authenticated('lists:write', 'list.edit')
  @ApiOperation({
    summary: 'Update list',
    description:
      'Renames, re-colours or repositions a list, or moves it to another folder of the same workspace (`folder_id`); only the fields sent change. Returns the whole list. A move by an access-restricted member needs both the current and the target folder granted.',
  })
  @ApiValidatedBody(UpdateListDto)
  @ApiOkResponse({ type: ListDto })
  @ApiErrors({
    404: [NOT_FOUND.folder],
  })
  updateList(@CurrentCaller() caller: Caller, @PathId('list') id: number, @Body() body: unknown): Promise<ListDto> {
    return this.lists.updateList(caller, id, body);
  }

  /** D1 (ext): delete list. */
  @Delete('lists/:list_id')
  @HttpCode(204)
  @Authenticated('lists:write', 'list.delete')
  @ApiOperation({
    summary: 'Delete list',
    description: 'Irreversible: deletes the list and its tasks.',
  })
  @ApiNoContentResponse({ description: 'Deleted; empty body' })
  async deleteList(@CurrentCaller() caller: Caller, @PathId('list') id: number): Promise<void> {
    await this.lists.deleteList(caller, id);
  }
}
