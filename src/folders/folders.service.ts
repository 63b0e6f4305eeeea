import { Injectable, NotFoundException } from '@nestjs/common';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { asBody, MAX_LENGTH, optionalInteger, optionalString, patchText, requiredText } from '../common/validation/body';
import { requireId } from '../common/validation/ids';
import { RawJson } from '../common/http/raw-json';
import type { FolderDto } from './folders.dto';
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
    const { membership } = await this.access.workspace(caller, workspaceId, 'folder.read');
    return this.folders.listByWorkspace(workspaceId, membership.restricted ? membership.folderIds : null);
  }

  /**
   * spec: Create folder. 400 `workspace_id is required`; 404 `Workspace not found` (D4);
   * 403 `Viewers cannot create folders`, `Access denied` (restricted, D30); 400 `name is required`.
   */
  async createFolder(caller: Caller, rawBody: unknown): Promise<FolderDto> {
    const body = asBody(rawBody);
    const workspaceId = requireId(body.workspace_id, 'workspace_id is required');
    await this.access.workspace(caller, workspaceId, 'folder.create');
    const name = requiredText(body, 'name', MAX_LENGTH.name);
    const icon = optionalString(body, 'icon') ?? null;
    const color = optionalString(body, 'color') ?? 'blue';
    return this.folders.insert(workspaceId, name, icon, color);
  }

  /**
   * D1 (ext): update folder; only sent fields change; returns the whole folder.
   * 404 `Folder not found` (also non-members, D4); 403 `Viewers cannot edit folders`,
   * `Access denied` (restricted, folder not granted: D30); 400 body errors.
   */
  async updateFolder(caller: Caller, id: number, rawBody: unknown): Promise<FolderDto> {
    await this.access.check(caller, 'folder', id, 'folder.edit');
    const body = asBody(rawBody);
    const folder = await this.folders.update(id, {
      name: patchText(body, 'name', MAX_LENGTH.name),
      icon: optionalString(body, 'icon'),
      color: optionalString(body, 'color'),
      position: optionalInteger(body, 'position'),
    });
    if (!folder) throw new NotFoundException('Folder not found');
    return folder;
  }

  /** spec: Delete folder, managers only; cascades to its lists and their tasks (D26). 404 `Folder not found`; 403 `Only owners and admins can delete folders`. */
  async deleteFolder(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'folder', id, 'folder.delete');
    await this.folders.delete(id);
  }
}
