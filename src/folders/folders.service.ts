import { Injectable, NotFoundException } from '@nestjs/common';

import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import { CreateFolderDto, FolderDto, UpdateFolderDto } from './folders.dto';
import { FoldersRepository } from './folders.repository';

/** Rules for folders: list, create, update (ext), delete; checks in the order of D3. */
@Injectable()
export class FoldersService {
  constructor(
    private readonly access: AccessService,
    private readonly folders: FoldersRepository,
  ) {}

  /** spec: List folders; any member; a restricted member sees only granted folders (D29). 404 `Workspace not found` (D4). */
  async listFolders(caller: Caller, workspaceId: number): Promise<RawJson<FolderDto[]>> {
    const { membership } = await this.access.workspace(caller, workspaceId);
    return this.folders.listByWorkspace(workspaceId, membership.restricted ? membership.folderIds : null);
  }

  /**
   * D39, D45: get folder; any member; a restricted member only a folder granted to them or holding a
   * list permitted to them (else 403 `Access denied`). 404 `Folder not found` (also non-members, D4).
   * One round trip: the access check and the read in one statement.
   */
  async getFolder(caller: Caller, id: number): Promise<RawJson<FolderDto>> {
    const { body } = await this.access.checkAndRead(caller, 'folder.read', id, this.folders.oneRead);
    return new RawJson(body);
  }

  /**
   * spec: Create folder. 400 `workspace_id is required`; 404 `Workspace not found` (D4);
   * 403 `Viewers cannot create folders`, `Access denied` (restricted, D30); 400 `name is required`.
   */
  async createFolder(caller: Caller, rawBody: unknown): Promise<FolderDto> {
    const create = await validateCreate(CreateFolderDto, rawBody);
    const workspaceId = create.target.workspace_id;
    await this.access.workspace(caller, workspaceId, 'folder.create');
    return this.folders.insert(caller, workspaceId, create.body(), caller.db);
  }

  /**
   * D1 (ext): update folder; only sent fields change; returns the whole folder.
   * 404 `Folder not found` (also non-members, D4); 403 `Viewers cannot edit folders`,
   * `Access denied` (restricted, folder not granted: D30); 400 body errors.
   */
  async updateFolder(caller: Caller, id: number, rawBody: unknown): Promise<FolderDto> {
    await this.access.check(caller, 'folder.edit', id);
    const folder = await this.folders.update(caller, id, await validateBody(UpdateFolderDto, rawBody), caller.db);
    if (!folder) throw new NotFoundException(NOT_FOUND.folder);
    return folder;
  }

  /** spec: Delete folder, managers only; cascades to its lists and their tasks (D26). 404 `Folder not found`; 403 `Only owners and admins can delete folders`. */
  async deleteFolder(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'folder.delete', id);
    await this.folders.delete(caller, id, caller.db);
  }
}
