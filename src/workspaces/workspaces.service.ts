import { Injectable, NotFoundException } from '@nestjs/common';
import { NOT_FOUND, seesMemberEmails } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import type { MemberDto, WorkspaceDto } from './workspaces.dto';
import { WorkspacesRepository } from './workspaces.repository';

/** Rules for workspaces. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly access: AccessService,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  /** D1 (ext): the caller's workspaces. */
  listWorkspaces(caller: Caller): Promise<WorkspaceDto[]> {
    return this.workspaces.listForMember(caller.userId);
  }

  /** spec: Get workspace; 404 `Workspace not found` for non-members too (D4). */
  async getWorkspace(caller: Caller, id: number): Promise<WorkspaceDto> {
    // One round trip: the membership join is the access check (member, not restricted: D30).
    const workspace = await this.workspaces.findForMember(id, caller.userId);
    if (!workspace) throw new NotFoundException(NOT_FOUND.workspace);
    return workspace;
  }

  /** spec: List workspace members; emails only for the owner. */
  async listMembers(caller: Caller, id: number): Promise<MemberDto[]> {
    const access = await this.access.workspace(caller, id);
    return this.workspaces.listMembers(id, seesMemberEmails(access.membership));
  }
}
