import { Injectable, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { NOT_FOUND, permitsFolder } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import { FoldersRepository } from '../folders/folders.repository';
import { CreateListDto, ListDto, UpdateListDto } from './lists.dto';
import { ListsRepository } from './lists.repository';

/** Rules for lists: lists of a folder (ext), create, update (ext), delete (ext); checks in the order of D3. */
@Injectable()
export class ListsService {
  constructor(
    private readonly db: DataSource,
    private readonly access: AccessService,
    private readonly lists: ListsRepository,
    private readonly folders: FoldersRepository,
  ) {}

  /**
   * D1 (ext): the lists of a folder by position, name, id (D23); any member. A restricted
   * member sees only permitted lists (D29): all of a granted folder, else the granted lists in it;
   * a folder neither granted nor holding a granted list answers 403 `Access denied` (D39).
   * 404 `Folder not found` (also non-members, D4).
   */
  async listFolderLists(caller: Caller, folderId: number): Promise<ListDto[]> {
    const { membership } = await this.access.check(caller, 'folder.read', folderId);
    return this.lists.listByFolder(folderId, permitsFolder(membership, folderId) ? null : membership.listIds);
  }

  /**
   * D39, D45: get list; any member; a restricted member only a permitted list (else 403 `Access denied`).
   * 404 `List not found`; non-members 403 `Access denied` (D4). One round trip: the access check and the read.
   */
  async getList(caller: Caller, id: number): Promise<RawJson<ListDto>> {
    const { body } = await this.access.checkAndRead(caller, 'list.read', id, this.lists.oneRead);
    return new RawJson(body);
  }

  /**
   * spec: Create list. 400 `workspace_id is required`, `folder_id is required`; 404 `Workspace not found` (D4),
   * `Folder not found`, `List not found` (folder of another workspace, D27); 403 `Viewers cannot create lists`,
   * `Access denied` (restricted, folder not granted: D30); 400 `name is required`.
   */
  async createList(caller: Caller, rawBody: unknown): Promise<ListDto> {
    // D3 step 4: the parent ids of a new list.
    const create = await validateCreate(CreateListDto, rawBody);
    const { workspace_id: workspaceId, folder_id: folderId } = create.target;
    // D3 step 5: the workspace, then the folder in it.
    await this.access.workspace(caller, workspaceId);
    return (caller.db?.manager ?? this.db).transaction(async (em) => {
      await this.requireFolderIn(em, folderId, workspaceId);
      // D3 step 6: role and restriction, decided on the folder (now known to be in this workspace).
      await this.access.check(caller, 'list.create', folderId, em);
      return this.lists.insert(em, caller, workspaceId, create.body());
    });
  }

  /**
   * D1 (ext): update list; only sent fields change; `folder_id` moves it to another folder of its workspace.
   * 404 `List not found`; 403 `Access denied` (non-member D4, or restricted and the list not permitted,
   * or on a move its current or target folder not granted: D30, D33), `Viewers cannot edit lists`; 400 body errors;
   * 404 `Folder not found` / `List not found` for the target folder (D27).
   */
  async updateList(caller: Caller, id: number, rawBody: unknown): Promise<ListDto> {
    const access = await this.access.check(caller, 'list.edit', id);
    const patch = await validateBody(UpdateListDto, rawBody);
    const targetFolderId = patch.folder_id;
    const list =
      targetFolderId === undefined
        ? await this.lists.update(caller, id, patch, caller.db?.manager)
        : await (caller.db?.manager ?? this.db).transaction(async (em) => {
            // D3 step 8: the target folder, locked so it stays until the move commits.
            await this.requireFolderIn(em, targetFolderId, access.workspaceId);
            this.access.requireListMove(access, targetFolderId);
            return this.lists.update(caller, id, patch, em);
          });
    if (!list) throw new NotFoundException(NOT_FOUND.list);
    return list;
  }

  /** D1 (ext): delete list, managers only; its tasks go with it (D26). 404 `List not found`; 403 `Access denied` (D4), `Only owners and admins can delete lists`. */
  async deleteList(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'list.delete', id);
    await this.lists.delete(caller, id, caller.db);
  }

  /** D27: 404 `Folder not found` when no such folder, `List not found` when it lies in another workspace. Locks the folder (FOR KEY SHARE). */
  private async requireFolderIn(em: EntityManager, folderId: number, workspaceId: number): Promise<void> {
    const folderWorkspaceId = await this.folders.lockWorkspaceOf(em, folderId);
    if (folderWorkspaceId === null) throw new NotFoundException(NOT_FOUND.folder);
    if (folderWorkspaceId !== workspaceId) throw new NotFoundException(NOT_FOUND.list);
  }
}
