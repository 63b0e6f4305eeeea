import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { NOT_FOUND, NOT_FOUND_IN_WORKSPACE } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { parseId } from '../common/validation/ids';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import { CreateStatusDto, StatusDto, UpdateStatusDto } from './statuses.dto';
import { StatusesRepository } from './statuses.repository';

/** spec: States and transitions, rule 1. */
export const LAST_COMPLETED = 'At least one completed status must remain in the workspace';

/** D43: the query parameter of delete status, and its answers. */
export const REPLACEMENT = 'replacement_status_id';
export const REPLACEMENT_MESSAGES = {
  once: `${REPLACEMENT} must be given only once`,
  invalid: `${REPLACEMENT} must be a valid numeric ID`,
  self: `${REPLACEMENT} cannot be the deleted status`,
  notFound: NOT_FOUND_IN_WORKSPACE.status,
} as const;

/** Rules for statuses: list (ext), create, update; the last-completed rule (spec rule 1) and unique names (D25). */
@Injectable()
export class StatusesService {
  constructor(
    private readonly db: DataSource,
    private readonly access: AccessService,
    private readonly statuses: StatusesRepository,
  ) {}

  /** D1 (ext): the workspace's statuses by position, id (D23); any member, not restricted (D30). 404 `Workspace not found`. */
  async listStatuses(caller: Caller, workspaceId: number): Promise<StatusDto[]> {
    await this.access.workspace(caller, workspaceId);
    return this.statuses.listByWorkspace(workspaceId);
  }

  /**
   * spec: Create status. 400 `workspace_id is required`; 404 `Workspace not found` (also non-members, D4);
   * 403 `Only owners and admins can create statuses`; 400 `name is required`, invalid category;
   * 409 `A status with this name already exists` (D25, from the unique index).
   */
  async createStatus(caller: Caller, rawBody: unknown): Promise<StatusDto> {
    const create = await validateCreate(CreateStatusDto, rawBody);
    const workspaceId = create.target.workspace_id;
    await this.access.workspace(caller, workspaceId, 'status.create');
    return this.statuses.insert(caller, workspaceId, create.body(), caller.db);
  }

  /**
   * spec: Update status; only sent fields change. 404 `Status not found`; 403 `Access denied` (non-member, D4)
   * or `Only owners and admins can edit statuses`; 400 body errors; 409 duplicate name (D25);
   * 400 `At least one completed status must remain in the workspace` (rule 1).
   */
  async updateStatus(caller: Caller, id: number, rawBody: unknown): Promise<StatusDto> {
    const access = await this.access.check(caller, 'status.edit', id);
    const patch = await validateBody(UpdateStatusDto, rawBody);
    // D25: setting `completed` again, or leaving the category alone, cannot break rule 1.
    const leavesCompleted = patch.category !== undefined && patch.category !== 'completed';
    return (caller.db?.manager ?? this.db).transaction(async (em) => {
      // Rule 1 under concurrency: lock the completed statuses before deciding, so two
      // updates of the last two completed statuses are serialised and the second sees the first.
      const completed = leavesCompleted ? await this.statuses.lockCompleted(em, access.workspaceId) : [];
      const status = await this.statuses.update(em, caller, id, patch); // D3 step 9: the 409 first
      if (!status) throw new NotFoundException(NOT_FOUND.status);
      if (leavesCompleted && completed.length === 1 && completed[0] === id) throw new BadRequestException(LAST_COMPLETED);
      return status;
    });
  }

  /**
   * D43: delete status. The status and the caller (404 `Status not found`, 403, `Only owners and
   * admins can delete statuses`) → `replacement_status_id` (step 7: sent twice, malformed or empty:
   * 400) → the replacement in the workspace (step 8: 404) → step 9: the deleted status itself, then
   * the last `completed` status (400). Other query parameters and any body are ignored. Two round
   * trips: the access check and one statement for the checks, the tasks, the delete and its event.
   */
  async deleteStatus(caller: Caller, id: number, query: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const access = await this.access.check(caller, 'status.delete', id);
    const values = query.filter(([name]) => name === REPLACEMENT).map(([, value]) => value);
    if (values.length > 1) throw new BadRequestException(REPLACEMENT_MESSAGES.once);
    let replacement: number | null = null;
    if (values.length === 1) {
      replacement = parseId(values[0]);
      if (replacement === null) throw new BadRequestException(REPLACEMENT_MESSAGES.invalid);
    }
    const result = await this.statuses.delete(caller, access.workspaceId, id, replacement, caller.db!);
    if (!result) throw new NotFoundException(NOT_FOUND.status);
    if (!result.replacement_found) throw new NotFoundException(REPLACEMENT_MESSAGES.notFound);
    if (result.replacement_self) throw new BadRequestException(REPLACEMENT_MESSAGES.self);
    if (result.last_completed) throw new BadRequestException(LAST_COMPLETED);
    if (!result.deleted) throw new NotFoundException(NOT_FOUND.status);
  }
}
