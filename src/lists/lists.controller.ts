import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { nulMessages } from '../common/validation/body';
import { CreateListDto, ListDto, UpdateListDto } from './lists.dto';
import { INVALID_FOLDER_ID, ListsService } from './lists.service';

/** D7: what any route with a JSON body can answer before the handler runs. */
const BODY_400 = ['Invalid JSON body', 'Request body must be a JSON object'];
const BODY_413 = ['Request body is too large'];
const BODY_415 = ['Content-Type must be application/json'];
const ATTRIBUTE_400 = ['icon must be a string', 'icon must be at most 255 characters', 'color must be a string', 'color must be at most 255 characters'];

/** HTTP for lists: lists of a folder (ext), create, update (ext), delete (ext). */
@ApiTags('Lists')
@Controller('api/v1')
export class ListsController {
  constructor(private readonly lists: ListsService) {}

  /** D1 (ext): lists of a folder. */
  @Get('folders/:folder_id/lists')
  @Authenticated('folders:read')
  @ApiOperation({
    summary: 'List the lists of a folder',
    description:
      'Lists of the folder, ordered by position, then name, then id. An access-restricted member receives only the lists permitted to them. Scope `folders:read`; any member.',
  })
  @ApiOkResponse({ type: [ListDto] })
  @ApiErrors({
    400: ['Invalid folder ID'],
    403: ["Scope 'folders:read' is required for this endpoint"],
    404: ['Folder not found'],
  })
  listFolderLists(@CurrentCaller() caller: Caller, @PathId('folder') id: number): Promise<ListDto[]> {
    return this.lists.listFolderLists(caller, id);
  }

  /** spec: Create list. */
  @Post('lists')
  @Authenticated('lists:write')
  @ApiOperation({
    summary: 'Create list',
    description:
      'Adds a list to a folder of the workspace, at position max + 1 over all lists of the workspace. `color` defaults to `gray`, `icon` to null. Scope `lists:write`; owners, admins and members (not viewers); an access-restricted member only in folders granted to them.',
  })
  @ApiBody({ type: CreateListDto })
  @ApiCreatedResponse({ type: ListDto })
  @ApiErrors({
    400: ['workspace_id is required', 'folder_id is required', 'name is required', 'name must be at most 255 characters', ...ATTRIBUTE_400, ...nulMessages('name', 'icon', 'color'), ...BODY_400],
    403: ["Scope 'lists:write' is required for this endpoint", 'Viewers cannot create lists', 'Access denied'],
    404: ['Workspace not found', 'Folder not found', 'List not found'],
    413: BODY_413,
    415: BODY_415,
  })
  createList(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<ListDto> {
    return this.lists.createList(caller, body);
  }

  /** D1 (ext): update list. */
  @Patch('lists/:list_id')
  @Authenticated('lists:write')
  @ApiOperation({
    summary: 'Update list',
    description:
      'Renames, re-colours or repositions a list, or moves it to another folder of the same workspace (`folder_id`); only the fields sent change. Returns the whole list. Scope `lists:write`; owners, admins and members (not viewers); an access-restricted member only on permitted lists and into granted folders.',
  })
  @ApiBody({ type: UpdateListDto })
  @ApiOkResponse({ type: ListDto })
  @ApiErrors({
    400: ['Invalid list ID', 'name must be a string', 'name cannot be empty', 'name must be at most 255 characters', ...ATTRIBUTE_400, ...nulMessages('name', 'icon', 'color'), 'position must be an integer', INVALID_FOLDER_ID, ...BODY_400],
    403: ["Scope 'lists:write' is required for this endpoint", 'Access denied', 'Viewers cannot edit lists'],
    404: ['List not found', 'Folder not found'],
    413: BODY_413,
    415: BODY_415,
  })
  updateList(@CurrentCaller() caller: Caller, @PathId('list') id: number, @Body() body: unknown): Promise<ListDto> {
    return this.lists.updateList(caller, id, body);
  }

  /** D1 (ext): delete list. */
  @Delete('lists/:list_id')
  @HttpCode(204)
  @Authenticated('lists:write')
  @ApiOperation({
    summary: 'Delete list',
    description: 'Irreversible: deletes the list and its tasks. Scope `lists:write`; owners and admins only.',
  })
  @ApiNoContentResponse({ description: 'Deleted; empty body' })
  @ApiErrors({
    400: ['Invalid list ID'],
    403: ["Scope 'lists:write' is required for this endpoint", 'Access denied', 'Only owners and admins can delete lists'],
    404: ['List not found'],
  })
  async deleteList(@CurrentCaller() caller: Caller, @PathId('list') id: number): Promise<void> {
    await this.lists.deleteList(caller, id);
  }
}
