import { BadRequestException, Injectable, NotFoundException, PreconditionFailedException } from '@nestjs/common';
import { HttpException, HttpStatus } from '@nestjs/common';

import { Membership, NOT_FOUND, NOT_FOUND_IN_WORKSPACE } from '../common/access/access.policy';
import type { AccessRow } from '../common/access/access.repository';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { etagOfDigest, ifMatchPrecondition, noneMatch, PRECONDITION_MESSAGES } from '../common/http/etag';
import { RawJson } from '../common/http/raw-json';
import type { QueryPairs } from '../common/validation/query-reader';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { throwCustomFieldVerdict } from '../custom-fields/custom-field-values';
import { sealCursor } from './task-cursor';
import { parseTaskQuery, TaskQuery } from './task-query';
import { CreateTaskDto, TaskCursorPageDto, TaskDto, TaskPageDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { Precondition, TaskPageRows, TasksRepository, TaskViewer, WrittenTask } from './tasks.repository';

/** A task answer and its ETag (D36). */
export interface TaggedTask<T> {
  task: RawJson<T>;
  etag: string;
}

/** D14, D33, D45: a parent that is not a task of the workspace the caller may see. */
export const PARENT_NOT_FOUND = 'Parent task not found';
/** D14, D45: the one-level rule. */
export const SUBTASKS_CANNOT_NEST = 'Subtasks cannot have subtasks';
/** D45: a task named as its own parent. */
export const OWN_PARENT = 'A task cannot be its own parent';

/** How often a write under If-Match runs again after a write of the same task committed under it (D36); then 412. */
const PRECONDITION_ATTEMPTS = 3;

/** Rules for tasks, in the order of D3. */
@Injectable()
export class TasksService {
  /** REQUIRE_IF_MATCH (D36). */
  private readonly requireIfMatch: boolean;

  constructor(
    private readonly access: AccessService,
    private readonly tasks: TasksRepository,
    @InjectSettings() settings: AppEnv,
  ) {
    this.requireIfMatch = settings.requireIfMatch;
  }

  /**
   * spec: Create task. list_id (400 required / malformed, D6) → the list and the
   * caller's membership (404 `List not found in this workspace`, 403, viewers,
   * restriction) → the body (400s) → status and parent (404s; a parent outside a
   * restricted member's permitted lists is not found, D33) → the custom-field values
   * of the fields that apply and are visible, in array order (400s, D42) → a parent
   * that is a subtask (400) → insert, 201 with
   * the write field set and the ETag of the get-task body (D36). One round trip: one
   * statement for the access check, the checks, the insert (it writes nothing unless
   * all pass) and the answer. An invalid body gets its 400 only after an access check
   * of its own, so the answers keep D3's order.
   */
  async createTask(caller: Caller, rawBody: unknown): Promise<TaggedTask<TaskWriteDto>> {
    const create = await validateCreate(CreateTaskDto, rawBody);
    const listId = create.target.list_id;
    let input: CreateTaskDto;
    try {
      input = create.body();
    } catch (invalid) {
      await this.access.check(caller, 'task.create', listId);
      throw invalid;
    }
    const created = await this.tasks.insertTask(listId, caller, input, caller.db);
    this.access.answer(caller, 'task.create', created);
    if (!created!.status_ok) throw new NotFoundException(NOT_FOUND_IN_WORKSPACE.status);
    if (!created!.parent_found) throw new NotFoundException(PARENT_NOT_FOUND);
    // D42: the custom-field values, after step 8 and before step 9.
    throwCustomFieldVerdict(created!);
    if (created!.parent_is_subtask) throw new BadRequestException(SUBTASKS_CANNOT_NEST);
    if (created!.written) return tagged(created!.written);
    // Nothing written although the checks passed: the list or the parent was deleted meanwhile.
    return this.vanished(caller, listId, input.parent_id !== null ? PARENT_NOT_FOUND : NOT_FOUND.task);
  }

  /**
   * spec: Get task; embedded subtasks only in lists the caller may see (D33). One round
   * trip (the key is usually in the guard's cache): the access check and the whole task in one statement.
   * D36: its ETag is that of the body; `notModified` when `ifNoneMatch` (after the access checks) names it.
   */
  async getTask(caller: Caller, id: number, ifNoneMatch?: string): Promise<TaggedTask<TaskDto> & { notModified: boolean }> {
    const { body, digest } = await this.access.checkAndRead(caller, 'task.read', id, this.tasks.fullTaskRead);
    const etag = etagOfDigest(digest!);
    return { task: new RawJson(body), etag, notModified: noneMatch(ifNoneMatch, etag) };
  }

  /**
   * D36: the If-Match precondition of an update or delete by `viewer`, or null when there is none
   * to check; with REQUIRE_IF_MATCH and no If-Match, one that never holds (answered 428, not 412).
   */
  private precondition(ifMatch: string | undefined, viewer: TaskViewer): (Precondition & { required: boolean }) | null {
    const parsed = ifMatchPrecondition(ifMatch);
    if (parsed) return { ...parsed, viewer, required: false };
    return this.requireIfMatch ? { any: false, digests: [], viewer, required: true } : null;
  }

  /** D36: the answer of a precondition that did not hold. */
  private static preconditionError(pre: { required: boolean }): HttpException {
    return pre.required
      ? new HttpException(PRECONDITION_MESSAGES.required, HttpStatus.PRECONDITION_REQUIRED)
      : new PreconditionFailedException(PRECONDITION_MESSAGES.failed);
  }

  /**
   * spec: Update task; only the fields sent change. Access (404, 403, viewers,
   * restriction on the current list) → the body (400s) → the target list of a
   * move (404 `List not found in this workspace`, then 403 when a restricted
   * member may not use it) and status_id (404), checked by the write statement
   * itself, which writes nothing when one fails → the custom-field values of the fields that
   * apply to the list after the write and are visible, in array order (400s, D42) → D36's If-Match, checked by that same
   * statement against the body as the caller sees it (412, or 428 under REQUIRE_IF_MATCH) →
   * the read back, with the ETag of the get-task body. Three round trips, If-Match or not
   * (one more each time a write of the same task commits under it).
   */
  async updateTask(caller: Caller, id: number, rawBody: unknown, ifMatch?: string): Promise<TaggedTask<TaskWriteDto>> {
    const access = await this.access.check(caller, 'task.edit', id);
    const patch = await validateBody(UpdateTaskDto, rawBody);
    const viewer = { userId: caller.userId, membership: access.membership };
    const pre = this.precondition(ifMatch, viewer);

    const place = { workspaceId: access.workspaceId, listId: access.listId, folderId: access.folderId };
    const parentId = patch.parent_id;
    const write = () => this.tasks.updateTask(id, place, access.membership, caller, patch, caller.db, pre ?? undefined);
    for (let attempt = 1; ; attempt++) {
      // D45: a re-parenting locks both tasks first, in a transaction, so that its checks see what committed meanwhile.
      const result =
        typeof parentId === 'number' && caller.db
          ? await caller.db.manager.transaction(async () => {
              await this.tasks.lockFamily(caller.db!, id, parentId);
              return write();
            })
          : await write();
      if (patch.list_id !== undefined) {
        if (!result.list_found) throw new NotFoundException(NOT_FOUND_IN_WORKSPACE.list);
        this.access.requireListPermitted(access.membership, patch.list_id, result.list_folder_id);
      }
      if (!result.status_ok) throw new NotFoundException(NOT_FOUND_IN_WORKSPACE.status);
      if (!result.parent_found) throw new NotFoundException(PARENT_NOT_FOUND);
      // D42: the custom-field values, after step 8 and before If-Match and step 9.
      throwCustomFieldVerdict(result);
      if (pre && result.precondition_ok === false) throw TasksService.preconditionError(pre);
      // D45 step 9, after If-Match (D36), in this order.
      if (result.parent_self) throw new BadRequestException(OWN_PARENT);
      if (result.parent_nested) throw new BadRequestException(SUBTASKS_CANNOT_NEST);
      if (!result.updated && pre && result.precondition_ok && attempt < PRECONDITION_ATTEMPTS) continue;
      if (!result.updated && pre && result.precondition_ok) throw TasksService.preconditionError(pre);
      if (!result.updated) throw new NotFoundException(NOT_FOUND.task);
      break;
    }
    const task = await this.tasks.loadWritten(id, viewer, caller.db);
    return task ? tagged(task) : this.vanished(caller, patch.list_id ?? null, NOT_FOUND.task);
  }

  /**
   * D43: add (`add`) or remove a label of a task. The task and the caller's access (404, 403,
   * `Viewers cannot edit tasks`, restriction) → no body (never parsed) → the label in the task's
   * workspace (404 `Label not found`, step 8) → If-Match (412 / 428, as update task) → the link
   * written, or nothing when it is already so (no event, `updated_at` unchanged). 200 with the
   * update-task answer and its ETag. Two round trips: the write statement (access check
   * included) and the read back.
   */
  async setTaskLabel(caller: Caller, op: 'add' | 'remove', id: number, labelId: number, ifMatch?: string): Promise<TaggedTask<TaskWriteDto>> {
    const parsed = ifMatchPrecondition(ifMatch);
    const pre = parsed ? { ...parsed, required: false } : this.requireIfMatch ? { any: false, digests: [], required: true } : null;
    let membership: Membership | undefined;
    for (let attempt = 1; ; attempt++) {
      const result = await this.tasks.setTaskLabel(op, id, labelId, caller, caller.db, pre ?? undefined);
      membership = this.access.answer(caller, 'task.edit', result).membership;
      if (!result!.label_found) throw new NotFoundException(NOT_FOUND.label);
      if (pre && result!.precondition_ok === false) throw TasksService.preconditionError(pre);
      if (result!.reached) break;
      if (!pre) throw new NotFoundException(NOT_FOUND.task);
      // Under If-Match: a write of the task committed between the check and the lock; run again on the new state.
      if (attempt >= PRECONDITION_ATTEMPTS) throw TasksService.preconditionError(pre);
    }
    const task = await this.tasks.loadWritten(id, { userId: caller.userId, membership }, caller.db);
    if (!task) throw new NotFoundException(NOT_FOUND.task);
    return tagged(task);
  }

  /**
   * The write committed, but the task was gone when read back: a delete
   * of its list (or folder), its parent or the task itself committed in between.
   * Answers the 404 of that delete: `List not found in this workspace` when the
   * list the task was written to no longer exists, else `otherwise`. One more
   * round trip, on this rare path only.
   */
  private async vanished(caller: Caller, listId: number | null, otherwise: string): Promise<never> {
    // The task's list under the rule of a create in it (its 404 is `List not found in this workspace`); the caller passed it before the write.
    if (listId !== null) await this.access.check(caller, 'task.create', listId);
    throw new NotFoundException(otherwise);
  }

  /**
   * spec: Delete task; subtasks, comments, attachments and values go with it (D16).
   * D36: under If-Match (or REQUIRE_IF_MATCH), only when the body as the caller sees it
   * still has one of the tags, checked by the delete statement itself (412 / 428).
   */
  async deleteTask(caller: Caller, id: number, ifMatch?: string): Promise<void> {
    const access = await this.access.check(caller, 'task.delete', id);
    const pre = this.precondition(ifMatch, { userId: caller.userId, membership: access.membership });
    for (let attempt = 1; ; attempt++) {
      const result = await this.tasks.deleteTask(caller, id, caller.db, pre ?? undefined);
      if (!pre || result.deleted) return;
      if (result.precondition_ok === null) throw new NotFoundException(NOT_FOUND.task);
      if (result.precondition_ok === false || attempt >= PRECONDITION_ATTEMPTS) throw TasksService.preconditionError(pre);
    }
  }

  /**
   * spec: List tasks (D22, D34). Membership (404 `Workspace not found`) → the
   * query's 400s in D34's order (parseTaskQuery, cursor included) → the list
   * filter (404, then 403 for a restricted member) → the page, its total and
   * its next cursor. One statement checks access and lists (issue 37): one
   * round trip, authentication included, whatever the filters and the limit;
   * a restricted member's page is a second one, with the grants the first found.
   */
  async listTasks(caller: Caller, workspaceId: number, pairs: QueryPairs): Promise<RawJson<TaskPageDto | TaskCursorPageDto>> {
    // Workspace-level check: the restriction applies to the rows and to list_id, not to the route (D30).
    let query: TaskQuery;
    try {
      query = parseTaskQuery(pairs, { workspaceId, userId: caller.userId });
    } catch (invalid) {
      // The query's 400s come after the membership's 404 (D34's order).
      await this.access.workspace(caller, workspaceId);
      throw invalid;
    }
    const checked = await this.tasks.checkedListPage(workspaceId, caller.userId, query);
    let page: TaskPageRows;
    if (checked?.listed) {
      // The statement listed only past the route's check (allowedSql, answer's twin), as checkAndRead's reads do.
      caller.workspaceId = workspaceId;
      page = checked;
    } else {
      // No such workspace, a list of another one, or a restricted member: the access row answers, or gives the grants.
      const row = checked ? (JSON.parse(checked.access) as AccessRow) : null;
      const access = this.access.answer(caller, 'workspace.read', row);
      const listId = query.filters.listId;
      if (listId !== null) {
        if (!row!.list_found) throw new NotFoundException(NOT_FOUND_IN_WORKSPACE.list);
        this.access.requireListPermitted(access.membership, listId, row!.list_folder_id);
      }
      page = await this.tasks.listPage({ workspaceId, membership: access.membership }, caller.userId, query);
    }
    const { data, total, next_key } = page;
    const { limit } = query;
    // The page's JSON goes out as PostgreSQL wrote it; the numbers and the cursor around it are ours.
    if (query.mode === 'offset') {
      return RawJson.page(data, `,"page":${query.page},"limit":${limit},"total":${total},"total_pages":${Math.ceil(total! / limit)}}`);
    }
    const nextCursor = next_key ? sealCursor(query.binding, next_key) : null;
    return RawJson.page(data, `,"limit":${limit},"next_cursor":${JSON.stringify(nextCursor)}${query.includeTotal ? `,"total":${total}` : ''}}`);
  }
}

/** A written task with its ETag. */
function tagged(written: WrittenTask): TaggedTask<TaskWriteDto> {
  return { task: written.task, etag: etagOfDigest(written.digest) };
}
