import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { parseId } from '../common/validation/ids';
import { validateBody, validateTarget } from '../common/validation/validate-body';
import { CreateTaskDto, TaskDto, TaskPageDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { TasksRepository } from './tasks.repository';

/** D22: default and bounds of `limit`. */
export const PAGE_LIMIT = { default: 50, min: 1, max: 100 } as const;

/** The query string of list tasks as Fastify parses it. */
export type ListTasksQuery = Record<string, unknown>;

/** An integer query parameter: `fallback` when absent, null when not a string of digits (or beyond 2^53). */
function integerParam(query: ListTasksQuery, name: string, fallback: number): number | null {
  const value = query[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** Rules for tasks, in the order of D3. */
@Injectable()
export class TasksService {
  constructor(
    private readonly db: DataSource,
    private readonly access: AccessService,
    private readonly tasks: TasksRepository,
  ) {}

  /**
   * spec: Create task. list_id (400 required / malformed, D6) → the list and the
   * caller's membership (404 `List not found in this workspace`, 403, viewers,
   * restriction) → the body (400s) → status and parent (404s; a parent outside a
   * restricted member's permitted lists is not found, D33) → insert, 201 with
   * the write field set. One transaction; round trips do not depend on the body.
   */
  async createTask(caller: Caller, rawBody: unknown): Promise<TaskWriteDto> {
    const { listId } = await validateTarget(CreateTaskDto, rawBody);
    const access = await this.access.check(caller, 'task.create', listId);
    const input = await validateBody(CreateTaskDto, rawBody);

    return this.db.transaction(async (em) => {
      const checks = await this.tasks.createChecks(em, access.workspaceId, input.statusId ?? null, input.parentId, access.membership);
      if (!checks.status_ok) throw new NotFoundException('Status not found in this workspace');
      if (!checks.parent_found) throw new NotFoundException('Parent task not found');
      if (checks.parent_is_subtask) throw new BadRequestException('Subtasks cannot have subtasks');
      const statusId = input.statusId ?? checks.default_status_id; // D17
      const place = { workspaceId: access.workspaceId, listId, folderId: access.folderId };
      const id = await this.tasks.insertTask(em, place, caller.userId, input, statusId);
      return (await this.tasks.loadTask(id, { userId: caller.userId, membership: access.membership }, 'write', em))!;
    });
  }

  /** spec: Get task; embedded subtasks only in lists the caller may see (D33). Three round trips in all: the key (guard), the access check, the whole task in one statement. */
  async getTask(caller: Caller, id: number): Promise<TaskDto> {
    const { membership } = await this.access.check(caller, 'task.read', id);
    const task = await this.tasks.loadTask(id, { userId: caller.userId, membership }, 'full');
    if (!task) throw new NotFoundException('Task not found');
    return task;
  }

  /**
   * spec: Update task; only the fields sent change. Access (404, 403, viewers,
   * restriction on the current list) → the body (400s) → the target list of a
   * move (404 `List not found in this workspace`, then 403 when a restricted
   * member may not use it) and status_id (404) → one write statement, in one transaction.
   */
  async updateTask(caller: Caller, id: number, rawBody: unknown): Promise<TaskWriteDto> {
    const access = await this.access.check(caller, 'task.edit', id);
    const patch = await validateBody(UpdateTaskDto, rawBody);

    return this.db.transaction(async (em) => {
      let place = { workspaceId: access.workspaceId, listId: access.listId, folderId: access.folderId };
      if (patch.listId !== undefined || patch.statusId !== undefined) {
        const checks = await this.tasks.updateChecks(em, access.workspaceId, patch.listId ?? null, patch.statusId ?? null);
        if (patch.listId !== undefined) {
          if (!checks.list_found) throw new NotFoundException('List not found in this workspace');
          this.access.requireListPermitted(access.membership, patch.listId, checks.list_folder_id);
          place = { ...place, listId: patch.listId, folderId: checks.list_folder_id };
        }
        if (!checks.status_ok) throw new NotFoundException('Status not found in this workspace');
      }
      await this.tasks.updateTask(em, id, place, caller.userId, patch);
      const task = await this.tasks.loadTask(id, { userId: caller.userId, membership: access.membership }, 'write', em);
      if (!task) throw new NotFoundException('Task not found');
      return task;
    });
  }

  /** spec: Delete task; subtasks, comments, attachments and values go with it (D16). */
  async deleteTask(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'task.delete', id);
    await this.tasks.deleteTask(id);
  }

  /**
   * spec: List tasks (D22). Membership (404 `Workspace not found`) → page, limit,
   * list_id (400s) → the list filter (404, then 403 for a restricted member) →
   * one statement for the page and the total. Four round trips at most, whatever the limit.
   */
  async listTasks(caller: Caller, workspaceId: number, query: ListTasksQuery): Promise<TaskPageDto> {
    // Workspace-level check: the restriction applies to the rows and to list_id, not to the route (D30).
    const access = await this.access.workspace(caller, workspaceId);
    const page = integerParam(query, 'page', 1);
    if (page === null || page < 1) throw new BadRequestException('page must be a positive integer');
    const limit = integerParam(query, 'limit', PAGE_LIMIT.default);
    if (limit === null || limit < PAGE_LIMIT.min || limit > PAGE_LIMIT.max) {
      throw new BadRequestException(`limit must be an integer between ${PAGE_LIMIT.min} and ${PAGE_LIMIT.max}`);
    }
    let listId: number | null = null;
    if (query.list_id !== undefined) {
      listId = parseId(query.list_id);
      if (listId === null) throw new BadRequestException('list_id must be a valid numeric ID');
      const list = await this.tasks.findList(listId);
      if (!list || list.workspace_id !== workspaceId) throw new NotFoundException('List not found in this workspace');
      this.access.requireListPermitted(access.membership, listId, list.folder_id);
    }

    const { membership } = access;
    const offset = (BigInt(page - 1) * BigInt(limit)).toString();
    const { total, data } = await this.tasks.listPage(
      { workspaceId, listId, membership },
      caller.userId,
      limit,
      offset,
    );
    return { data, page, limit, total, total_pages: Math.ceil(total / limit) };
  }
}
