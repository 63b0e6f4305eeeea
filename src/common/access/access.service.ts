import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Caller } from '../auth/auth-context';
import { decide, Membership, Operation, permitsList, permitsListMove } from './access.policy';
import { AccessRepository, AccessRow, ResourceKind } from './access.repository';

/** What an allowed access check found: where the target lies and the caller's membership there. */
export interface Access {
  workspaceId: number;
  folderId: number | null;
  listId: number | null;
  membership: Membership;
}

/** D4: the answer a non-member gets, per kind of route. */
const NON_MEMBER: Record<ResourceKind, () => Error> = {
  workspace: () => new NotFoundException('Workspace not found'),
  folder: () => new NotFoundException('Folder not found'),
  list: () => new ForbiddenException('Access denied'),
  task: () => new ForbiddenException('Access denied'),
  status: () => new ForbiddenException('Access denied'),
  label: () => new ForbiddenException('Access denied'),
};

/** D4: the 404 for a target that does not exist. */
const NOT_FOUND: Record<ResourceKind, string> = {
  workspace: 'Workspace not found',
  folder: 'Folder not found',
  list: 'List not found',
  task: 'Task not found',
  status: 'Status not found',
  label: 'Label not found',
};

/**
 * The one place that decides who may do what (D1, D2, D4, D29, D30).
 * Each check is one SQL round trip and answers with the contract's error, in
 * the order of D3 steps 5 and 6: existence and membership, then role, then restriction.
 */
@Injectable()
export class AccessService {
  constructor(private readonly repo: AccessRepository) {}

  /**
   * Checks `operation` by `caller` on the `kind` resource `id`.
   * Throws 404 (no such target; `notFoundMessage` overrides the kind's text),
   * 404/403 for non-members (D4), 403 with the D2 message or `Access denied`.
   */
  async check(caller: Caller, kind: ResourceKind, id: number, operation: Operation, notFoundMessage?: string, manager?: EntityManager): Promise<Access> {
    return this.decideRow(await this.repo.resolve(kind, id, caller.userId, manager), kind, operation, notFoundMessage);
  }

  /** The answer of check() for a resolved row. */
  private decideRow(row: AccessRow | null, kind: ResourceKind, operation: Operation, notFoundMessage?: string): Access {
    if (!row) throw new NotFoundException(notFoundMessage ?? NOT_FOUND[kind]);
    const access = toAccess(row);
    if (!access) throw NON_MEMBER[kind]();
    const denial = decide(access.membership, operation, access.folderId, access.listId);
    if (denial) throw new ForbiddenException(denial);
    return access;
  }

  /**
   * workspace() for a route filtered on list `listId` of that workspace, in the same
   * round trip: `list` is that list's folder, or null when the workspace has no such list.
   */
  async workspaceWithList(caller: Caller, workspaceId: number, listId: number): Promise<Access & { list: { folderId: number | null } | null }> {
    const row = await this.repo.resolve('workspace', workspaceId, caller.userId, undefined, listId);
    const access = this.decideRow(row, 'workspace', 'workspace.read');
    return { ...access, list: row!.list_found ? { folderId: row!.list_folder_id } : null };
  }

  /** Spec: Get workspace and every `/workspaces/:id/...` route; non-members get 404 `Workspace not found`. */
  workspace(caller: Caller, workspaceId: number, operation: Operation = 'workspace.read'): Promise<Access> {
    return this.check(caller, 'workspace', workspaceId, operation);
  }

  /** 403 `Access denied` unless the list (in the same workspace) is permitted to this membership (D30: moves). */
  requireListPermitted(membership: Membership, listId: number | null, folderId: number | null): void {
    if (!permitsList(membership, listId, folderId)) throw new ForbiddenException('Access denied');
  }

  /**
   * 403 `Access denied` unless the list found by `listAccess` (a `list.edit` check)
   * may move to folder `toFolderId`: both its current folder and the target granted (D30, D33).
   */
  requireListMove(listAccess: Access, toFolderId: number): void {
    if (!permitsListMove(listAccess.membership, listAccess.folderId, toFolderId)) throw new ForbiddenException('Access denied');
  }
}

function toAccess(row: AccessRow): Access | null {
  if (!row.role) return null;
  return {
    workspaceId: row.workspace_id,
    folderId: row.folder_id,
    listId: row.list_id,
    membership: {
      role: row.role,
      restricted: row.is_restricted === true,
      folderIds: row.folder_ids,
      listIds: row.list_ids,
    },
  };
}
