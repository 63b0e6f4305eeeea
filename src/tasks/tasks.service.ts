import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { asBody, has } from '../common/validation/body';
import { requireId } from '../common/validation/ids';
import { sealCursor } from './task-cursor';
import { parseTaskQuery, QueryPairs } from './task-query';
import { parseCreateBody, parseUpdateBody } from './tasks.body';
import type { TaskCursorPageDto, TaskDto, TaskPageDto, TaskWriteDto } from './tasks.dto';
import { TasksRepository } from './tasks.repository';

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
    const body = asBody(rawBody);
    if (!has(body, 'list_id') || body.list_id === null) throw new BadRequestException('list_id is required');
    const listId = requireId(body.list_id, 'list_id must be a valid numeric ID');
    const access = await this.access.check(caller, 'list', listId, 'task.create', 'List not found in this workspace');
    const input = await parseCreateBody(body);

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
    const { membership } = await this.access.check(caller, 'task', id, 'task.read');
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
    const access = await this.access.check(caller, 'task', id, 'task.edit');
    const patch = await parseUpdateBody(asBody(rawBody));

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
    await this.access.check(caller, 'task', id, 'task.delete');
    await this.tasks.deleteTask(id);
  }

  /**
   * spec: List tasks (D22, D34). Membership (404 `Workspace not found`) → the
   * query's 400s in D34's order (parseTaskQuery, cursor included) → the list
   * filter (404, then 403 for a restricted member) → one statement for the
   * page, its total and its next cursor. Three round trips at most beyond
   * authentication, whatever the filters and the limit.
   */
  async listTasks(caller: Caller, workspaceId: number, pairs: QueryPairs): Promise<TaskPageDto | TaskCursorPageDto> {
    // Workspace-level check: the restriction applies to the rows and to list_id, not to the route (D30).
    const { membership } = await this.access.workspace(caller, workspaceId);
    const query = parseTaskQuery(pairs, { workspaceId, userId: caller.userId });
    const listId = query.filters.listId;
    if (listId !== null) {
      const list = await this.tasks.findList(listId);
      if (!list || list.workspace_id !== workspaceId) throw new NotFoundException('List not found in this workspace');
      this.access.requireListPermitted(membership, listId, list.folder_id);
    }

    const { data, total, next_key } = await this.tasks.listPage({ workspaceId, membership }, caller.userId, query);
    const { limit } = query;
    if (query.mode === 'offset') return { data, page: query.page, limit, total: total!, total_pages: Math.ceil(total! / limit) };
    const next_cursor = next_key ? sealCursor(query.binding, next_key) : null;
    return query.includeTotal ? { data, limit, next_cursor, total: total! } : { data, limit, next_cursor };
  }
}
