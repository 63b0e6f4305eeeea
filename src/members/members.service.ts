import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';

import { mayBeRestricted, memberChangeDenial, NOT_FOUND, Role, seesMemberEmails } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { dbOf } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { validateBody } from '../common/validation/validate-body';
import { USER_NOT_FOUND } from '../users/users.dto';
import type { MemberDto } from '../workspaces/workspaces.dto';
import { AddMemberDto, MemberAccessDto, UpdateMemberDto } from './members.dto';
import { GrantLookups, MembersRepository } from './members.repository';

/** D41's answers at D3 steps 8 and 9 that are not the policy table's. */
export const MEMBER_ERRORS = {
  userNotFound: USER_NOT_FOUND,
  already: 'User is already a member of this workspace',
  restrictedAdmin: 'Only members and viewers can be access-restricted',
} as const;

/** A write that found its member changed since the access check: SQLSTATE 40001, so the request runs once more (WriteRequests). */
function changedMeanwhile(): Error {
  return Object.assign(new Error('the member changed while the request ran'), { code: '40001' });
}

/**
 * Rules for members (D41): add, update, remove, access; checks in D3's order. Memberships
 * are read by the access check of every request (no cache): a change counts for the next
 * request of every process.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly access: AccessService,
    private readonly members: MembersRepository,
    private readonly sql: Sql,
  ) {}

  /**
   * D41 add: 404 `Workspace not found`; 403 `Only owners and admins can manage members`; 400 body;
   * 404 `User not found`, `Folder not found`, `List not found`; 409 already a member; 403
   * `Only the owner can manage admins`; 400 restricted admin.
   */
  async addMember(caller: Caller, workspaceId: number, rawBody: unknown): Promise<MemberDto> {
    const { membership } = await this.access.workspace(caller, workspaceId, 'member.add');
    const body = await validateBody(AddMemberDto, rawBody);
    const role: Role = body.role ?? 'member';
    const restricted = body.restricted ?? false;
    const denial = memberChangeDenial({ kind: 'add', callerRole: membership.role, self: false, targetRole: null, newRole: role });
    const restrictedAdmin = restricted && !mayBeRestricted(role);
    const result = await this.members.add(
      caller,
      workspaceId,
      { id: body.user_id, email: body.email },
      { role, restricted, folderIds: body.folder_ids ?? [], listIds: body.list_ids ?? [] },
      !denial && !restrictedAdmin,
      seesMemberEmails(membership),
      dbOf(caller, this.sql),
    );
    if (result.user_id === null) throw new NotFoundException(MEMBER_ERRORS.userNotFound);
    lookupsFound(result);
    if (result.member) return result.member;
    if (result.already || (!denial && !restrictedAdmin)) throw new ConflictException(MEMBER_ERRORS.already);
    if (denial) throw new ForbiddenException(denial);
    throw new BadRequestException(MEMBER_ERRORS.restrictedAdmin);
  }

  /**
   * D41 update: 404 `Workspace not found`, `Member not found`; 403 `Only owners and admins can manage
   * members`; 400 body; 404 `Folder not found`, `List not found`; 403 the owner and admin rules;
   * 400 restricted admin. An empty or no-op update answers 200 and records nothing.
   */
  async updateMember(caller: Caller, workspaceId: number, userId: number, rawBody: unknown): Promise<MemberDto> {
    const { membership, target } = await this.access.member(caller, 'member.edit', workspaceId, userId);
    const body = await validateBody(UpdateMemberDto, rawBody);
    const denial = memberChangeDenial({ kind: 'edit', callerRole: membership.role, self: target.self, targetRole: target.role, newRole: body.role });
    const restrictedAdmin = (body.restricted ?? target.restricted) && !mayBeRestricted(body.role ?? target.role);
    const result = await this.members.update(
      caller,
      workspaceId,
      userId,
      target.role,
      { role: body.role, restricted: body.restricted, folderIds: body.folder_ids ?? null, listIds: body.list_ids ?? null },
      !denial && !restrictedAdmin,
      seesMemberEmails(membership),
      dbOf(caller, this.sql),
    );
    lookupsFound(result);
    if (denial) throw new ForbiddenException(denial);
    if (restrictedAdmin) throw new BadRequestException(MEMBER_ERRORS.restrictedAdmin);
    if (!result.member) throw changedMeanwhile();
    return result.member;
  }

  /**
   * D41 remove: 404 `Workspace not found`, `Member not found`; 403 `Only owners and admins can manage
   * members` (but anyone may remove themself); 403 `The workspace owner cannot be removed`,
   * `Only the owner can manage admins` (an admin may remove themself).
   */
  async removeMember(caller: Caller, workspaceId: number, userId: number): Promise<void> {
    const { membership, target } = await this.access.member(caller, 'member.remove', workspaceId, userId);
    const denial = memberChangeDenial({ kind: 'remove', callerRole: membership.role, self: target.self, targetRole: target.role });
    if (denial) throw new ForbiddenException(denial);
    if (!(await this.members.remove(caller, workspaceId, userId, target.role, dbOf(caller, this.sql)))) throw changedMeanwhile();
  }

  /** D41 access: the member's role, restriction and grants; managers and the member themself. One round trip. */
  async memberAccess(caller: Caller, workspaceId: number, userId: number): Promise<MemberAccessDto> {
    const { target } = await this.access.member(caller, 'member.access', workspaceId, userId);
    return { user_id: target.userId, role: target.role, restricted: target.restricted, folder_ids: target.folderIds, list_ids: target.listIds };
  }
}

/** D3 step 8: 404 for the first grant id that names no folder, then no list, of the workspace. */
function lookupsFound(result: GrantLookups): void {
  if (result.missing_folder !== null) throw new NotFoundException(NOT_FOUND.folder);
  if (result.missing_list !== null) throw new NotFoundException(NOT_FOUND.list);
}
