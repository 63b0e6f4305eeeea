import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import type { Caller } from '../auth/auth-context';
import {
  ACCESS_DENIED,
  decide,
  Membership,
  nonMemberAnswer,
  NOT_FOUND,
  notFoundMessage,
  Operation,
  permitsList,
  permitsListMove,
  POLICY,
  Role,
} from './access.policy';
import { AccessRead, AccessRepository, AccessRow } from './access.repository';
import { allowedSql } from './access.sql';

/** What an allowed access check found: where the target lies and the caller's membership there. */
export interface Access {
  workspaceId: number;
  folderId: number | null;
  listId: number | null;
  membership: Membership;
}

/** The member a member route names (D41): their role, restriction and stored grants (ascending). */
export interface MemberTarget {
  userId: number;
  role: Role;
  restricted: boolean;
  folderIds: number[];
  listIds: number[];
  /** The member is the caller. */
  self: boolean;
}

/**
 * The one place that decides who may do what (D1, D2, D4, D29, D30).
 * Each check is one SQL round trip and answers with the contract's error, in
 * the order of D3 steps 5 and 6: existence and membership, then role, then restriction.
 */
@Injectable()
export class AccessService {
  constructor(private readonly repo: AccessRepository) {}

  /** The statements of checkAndRead, built once per operation and read (the same text each call: no re-hashing, no re-building). */
  private readonly readStatements = new Map<Operation, Map<AccessRead, string>>();

  /**
   * Checks `operation` by `caller` on its target (POLICY: the kind of resource) with id `id`.
   * Throws 404 (no such target), 404/403 for non-members (D4), 403 with the D2
   * message or `Access denied` (D30).
   */
  async check(caller: Caller, operation: Operation, id: number, manager?: EntityManager): Promise<Access> {
    return this.answer(caller, operation, await this.repo.resolve(POLICY[operation].target, id, caller.userId, manager, null, caller.db));
  }

  /**
   * check() for a read `operation` and, when it passes, the text `read` selects,
   * from the same statement: one round trip for both. `read` is SQL over
   * READ_PARAMS and the access row's grants (ACCESS_ROW_GRANTS), a constant of
   * its repository; `digest` is the SHA-256 of the body's bytes when the read is
   * tagged, else null. Throws what check() throws.
   */
  async checkAndRead(caller: Caller, operation: Operation, id: number, read: AccessRead): Promise<{ body: string; digest: Buffer | null }> {
    let statements = this.readStatements.get(operation);
    if (!statements) this.readStatements.set(operation, (statements = new Map()));
    let statement = statements.get(read);
    if (statement === undefined) statements.set(read, (statement = this.repo.readStatement(POLICY[operation].target, allowedSql(operation), read)));
    const row = await this.repo.resolveAndRead(statement, id, caller.userId);
    if (row?.body == null) {
      // Not found, or not allowed: the access row answers with the contract's error.
      this.answer(caller, operation, row?.denied ? (JSON.parse(row.denied) as AccessRow) : null);
      // allowedSql is decide()'s twin: an allowed check whose read is missing is a bug, not a client error.
      throw new Error(`checkAndRead: ${operation} allowed, but the statement read nothing`);
    }
    caller.workspaceId = row.workspace_id;
    return { body: row.body, digest: row.digest ?? null };
  }

  /**
   * The answer of check() for an access row: from resolve(), or from a write statement
   * that checked access itself (accessCte, gated on allowedSql: it wrote nothing unless
   * this returns). Throws what check() throws.
   */
  answer(caller: Caller, operation: Operation, row: AccessRow | null): Access {
    const kind = POLICY[operation].target;
    if (!row) throw new NotFoundException(notFoundMessage(operation));
    caller.workspaceId = row.workspace_id;
    const access = toAccess(row);
    if (!access) {
      const { status, message } = nonMemberAnswer(kind);
      throw status === 404 ? new NotFoundException(message) : new ForbiddenException(message);
    }
    const denial = decide(access.membership, operation, access.folderId, access.listId);
    if (denial) throw new ForbiddenException(denial);
    return access;
  }

  /**
   * D39: checks member `operation` (its target a `member`) on member `targetUserId` of workspace
   * `workspaceId`, in D3's order: 404 `Workspace not found` (also non-members), 404
   * `Member not found`, then the role (the member themself passes where the rule says so).
   * One round trip.
   */
  async member(caller: Caller, operation: Operation, workspaceId: number, targetUserId: number): Promise<Access & { target: MemberTarget }> {
    const row = await this.repo.resolveMember(workspaceId, caller.userId, targetUserId, caller.db);
    if (!row) throw new NotFoundException(notFoundMessage(operation));
    caller.workspaceId = row.workspace_id;
    const access = toAccess(row);
    if (!access) throw new NotFoundException(nonMemberAnswer(POLICY[operation].target).message);
    if (!row.target_role) throw new NotFoundException(NOT_FOUND.member);
    const self = targetUserId === caller.userId;
    const denial = decide(access.membership, operation, null, null, self);
    if (denial) throw new ForbiddenException(denial);
    const target: MemberTarget = {
      userId: targetUserId,
      role: row.target_role,
      restricted: row.target_restricted === true,
      folderIds: row.target_folder_ids,
      listIds: row.target_list_ids,
      self,
    };
    return { ...access, target };
  }

  /** Spec: Get workspace and every `/workspaces/:id/...` route; non-members get 404 `Workspace not found`. `operation` targets a workspace. */
  workspace(caller: Caller, workspaceId: number, operation: Operation = 'workspace.read'): Promise<Access> {
    return this.check(caller, operation, workspaceId);
  }

  /** 403 `Access denied` unless the list (in the same workspace) is permitted to this membership (D30: moves). */
  requireListPermitted(membership: Membership, listId: number | null, folderId: number | null): void {
    if (!permitsList(membership, listId, folderId)) throw new ForbiddenException(ACCESS_DENIED);
  }

  /**
   * 403 `Access denied` unless the list found by `listAccess` (a `list.edit` check)
   * may move to folder `toFolderId`: both its current folder and the target granted (D30, D33).
   */
  requireListMove(listAccess: Access, toFolderId: number): void {
    if (!permitsListMove(listAccess.membership, listAccess.folderId, toFolderId)) throw new ForbiddenException(ACCESS_DENIED);
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
      listFolderIds: row.list_folder_ids ?? [],
    },
  };
}
