import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';

import { NOT_FOUND, seesMemberEmails } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { dbOf } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { WORKSPACE_SLUG_TAKEN } from '../common/database/unique-messages';
import { validateBody } from '../common/validation/validate-body';
import { deriveSlug } from './workspace-fields';
import { CreateWorkspaceDto, MemberDto, UpdateWorkspaceDto, WorkspaceDto } from './workspaces.dto';
import { WorkspacesRepository } from './workspaces.repository';

/**
 * How many times a create with a derived slug runs again after a concurrent create took the slug
 * it picked (each run sees the other's commit and picks the next free one): only a burst of this
 * many creates of one name committing in the same instant exhausts it.
 */
const DERIVED_SLUG_RUNS = 50;

/** Rules for workspaces. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly access: AccessService,
    private readonly workspaces: WorkspacesRepository,
    private readonly sql: Sql,
  ) {}

  /**
   * D40: Create workspace; any key, the caller becomes its owner. 400 body errors; 409
   * `A workspace with this slug already exists` for a sent slug another workspace holds.
   * A derived slug never gives 409: a create that loses a race takes the next free suffix.
   */
  async createWorkspace(caller: Caller, rawBody: unknown): Promise<WorkspaceDto> {
    const body = await validateBody(CreateWorkspaceDto, rawBody);
    const derived = body.slug === undefined;
    const slug = body.slug ?? deriveSlug(body.name);
    for (let run = 0; run < DERIVED_SLUG_RUNS; run++) {
      const workspace = await this.workspaces.insert(caller.userId, body, slug, derived, dbOf(caller, this.sql));
      if (workspace) return workspace;
      if (!derived) throw new ConflictException(WORKSPACE_SLUG_TAKEN);
    }
    throw new Error(`createWorkspace: no free slug for '${slug}' after ${DERIVED_SLUG_RUNS} runs`);
  }

  /**
   * D40: Update workspace; managers. 404 `Workspace not found` (non-members too, D4); 403
   * `Only owners and admins can edit workspaces`; 400 body errors; 409 a slug another holds.
   */
  async updateWorkspace(caller: Caller, id: number, rawBody: unknown): Promise<WorkspaceDto> {
    const access = await this.access.check(caller, 'workspace.edit', id);
    const patch = await validateBody(UpdateWorkspaceDto, rawBody);
    const workspace = await this.workspaces.update(caller, id, access.membership.role, patch, dbOf(caller, this.sql));
    if (!workspace) throw new NotFoundException(NOT_FOUND.workspace);
    return workspace;
  }

  /** D40: Delete workspace; the owner only; everything in it goes in one transaction. 404; 403 `Only the owner can delete the workspace`. */
  async deleteWorkspace(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'workspace.delete', id);
    await this.workspaces.delete(id, dbOf(caller, this.sql));
  }

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
