import * as apiKeys from './api-keys/api-keys.repository';
import * as attachments from './attachments/attachments.repository';
import * as comments from './comments/comments.repository';
import type { Membership } from './common/access/access.policy';
import { WriteStatement } from './common/database/write-statement';
import * as customFields from './custom-fields/custom-fields.repository';
import * as folders from './folders/folders.repository';
import * as labels from './labels/labels.repository';
import * as lists from './lists/lists.repository';
import * as members from './members/members.repository';
import * as statuses from './statuses/statuses.repository';
import { taskListSql } from './tasks/task-list.sql';
import { parseTaskQuery } from './tasks/task-query';
import * as tasks from './tasks/tasks.repository';
import { TASK_WRITE_COLUMNS } from './tasks/tasks.sql';
import * as users from './users/users.repository';
import * as webhooks from './webhooks/webhooks.repository';
import * as workspaces from './workspaces/workspaces.repository';

/*
 * The reviewable SQL of the repositories (issue 33): `npm run queries` writes, per domain,
 * src/<domain>/<domain>.queries.sql with every write statement in each of its shapes, `$n`
 * placeholders as sent; test/e2e/queries.e2e-spec.ts fails when a committed file differs.
 * A statement is registered by exporting it from its repository in an array (`*_WRITES`):
 * every WriteStatement in an exported array of a module below is rendered. It then needs sample
 * inputs here (SAMPLES, by name), one per shape; the test fails for a statement without them
 * and for a `writeStatement(` of src that no module below exports.
 */

/** The repository modules whose exported statement arrays are rendered, by domain directory. */
const MODULES: Record<string, object> = {
  'api-keys': apiKeys,
  attachments,
  comments,
  'custom-fields': customFields,
  folders,
  labels,
  lists,
  members,
  statuses,
  tasks,
  users,
  webhooks,
  workspaces,
};

/** The write statements a module exports (in arrays), in export order. */
function statementsOf(module: object): WriteStatement<unknown, unknown>[] {
  return Object.values(module).flatMap((value: unknown) =>
    Array.isArray(value) ? value.filter((s): s is WriteStatement<unknown, unknown> => s instanceof WriteStatement) : [],
  );
}

/** Every registered statement, with its domain. */
export function registeredStatements(): { domain: string; statement: WriteStatement<unknown, unknown> }[] {
  return Object.entries(MODULES).flatMap(([domain, module]) => statementsOf(module).map((statement) => ({ domain, statement })));
}

const actor = { userId: 1, apiKeyId: null };
/** A patch sending every one of `columns`. */
const all = (columns: readonly string[]) => Object.fromEntries(columns.map((c) => [c, 1]));
/** A patch sending the first of `columns` only. */
const one = (columns: readonly string[]) => ({ [columns[0]]: 1 });
const taskColumns = TASK_WRITE_COLUMNS.map((c) => c.column);
const membership: Membership = { role: 'member', restricted: true, folderIds: [1], listIds: [2], listFolderIds: [3] };
const anyPre = { any: true };
const digestPre = { any: false, digests: [Buffer.alloc(0)], viewer: { userId: 1, membership } };
const fieldAll = {
  name: 'n',
  config: {},
  is_scope_restricted: true,
  granted_folder_ids: [1],
  list_overrides: [{ list_id: 1, access: 'read' }],
  allowed_user_ids: [1],
  position: 1,
};

/** Sample inputs of each statement, by name: one per shape (a patch: every field sent, and one). Only the text is built from them. */
export const SAMPLES: Record<string, readonly unknown[]> = {
  'api_key.insert': [{ userId: 1, callingKeyId: 1, key: { hash: 'h', last4: 'l', name: 'n', scopes: ['tasks:read'], expiresAt: null } }],
  'api_key.revoke': [{ userId: 1, id: 1 }],
  'api_key.widen': [{ hash: 'h', scopes: ['tasks:read'] }],
  'attachment.insert': [
    { actor, taskId: 1, quotaBytes: 1, row: { fileName: 'f', fileSize: 1, mimeType: 'm', storageKey: 'k', expiresAt: null } },
    { actor, taskId: 1, quotaBytes: 1, row: { fileName: 'f', fileSize: 1, mimeType: 'm', storageKey: 'k', expiresAt: new Date(0) } },
  ],
  'attachment.confirm': [{ actor, id: 1, storageKey: null }],
  'attachment.delete': [{ actor, id: 1 }],
  'comment.update': [{ actor, id: 1, content: 'c', resolved: null }],
  'comment.delete': [{ actor, id: 1, managerial: false }],
  'comment.insert': [{ actor, taskId: 1, body: { content: 'c' } }],
  'custom_field.insert': [{ actor, workspaceId: 1, body: { ...fieldAll, type: 'text' } }],
  'custom_field.update': [
    { actor, id: 1, workspaceId: 1, patch: fieldAll },
    { actor, id: 1, workspaceId: 1, patch: { name: 'n' } },
  ],
  'custom_field.delete': [{ actor, id: 1 }],
  'folder.insert': [{ actor, workspaceId: 1, body: all(folders.FOLDER_TABLE.columns) }],
  'folder.update': [
    { actor, id: 1, patch: all(folders.FOLDER_TABLE.columns) },
    { actor, id: 1, patch: one(folders.FOLDER_TABLE.columns) },
  ],
  'folder.delete': [{ actor, id: 1 }],
  'label.insert': [{ actor, workspaceId: 1, body: all(labels.LABEL_TABLE.columns) }],
  'label.update': [
    { actor, id: 1, patch: all(labels.LABEL_TABLE.columns) },
    { actor, id: 1, patch: one(labels.LABEL_TABLE.columns) },
  ],
  'label.delete': [{ actor, id: 1 }],
  'list.insert': [{ actor, workspaceId: 1, body: all(lists.LIST_TABLE.columns) }],
  'list.update': [
    { actor, id: 1, patch: all(lists.LIST_TABLE.columns) },
    { actor, id: 1, patch: one(lists.LIST_TABLE.columns) },
  ],
  'list.delete': [{ actor, id: 1 }],
  'member.add': [
    { actor, workspaceId: 1, user: { id: 1 }, write: { role: 'member', restricted: true, folder_ids: [1], list_ids: [1] }, allowed: true, emails: false },
    { actor: null, workspaceId: 1, user: { id: 1 }, write: { role: 'member', restricted: true, folder_ids: [1], list_ids: [1] }, allowed: true, emails: false },
  ],
  'member.update': [{ actor, workspaceId: 1, userId: 1, role: 'member', write: { role: 'member' }, allowed: true, emails: false }],
  'member.remove': [{ actor, workspaceId: 1, userId: 1, role: 'member' }],
  'status.insert': [{ actor, workspaceId: 1, body: all(statuses.STATUS_TABLE.columns) }],
  'status.update': [
    { actor, id: 1, patch: all(statuses.STATUS_TABLE.columns) },
    { actor, id: 1, patch: one(statuses.STATUS_TABLE.columns) },
  ],
  'status.delete': [{ actor, workspaceId: 1, id: 1, replacementId: null }],
  'task.insert': [
    { listId: 1, actor, task: { ...all(taskColumns), custom_fields: [{ field_id: 1, value: 1 }], assignee_ids: [1], label_ids: [1] } },
    { listId: 1, actor, task: { title: 't' } },
  ],
  'task.update': [
    {
      id: 1,
      place: { workspaceId: 1 },
      membership,
      actor,
      patch: { ...all(taskColumns), parent_id: 1, custom_fields: [{ field_id: 1, value: 1 }], assignee_ids: [1], label_ids: [1] },
      pre: digestPre,
    },
    { id: 1, place: { workspaceId: 1 }, membership, actor, patch: { title: 't' } },
    { id: 1, place: { workspaceId: 1 }, membership, actor, patch: { title: 't' }, pre: anyPre },
  ],
  'task.label': [
    { op: 'add', id: 1, labelId: 1, actor },
    { op: 'remove', id: 1, labelId: 1, actor, pre: digestPre },
  ],
  'task.delete': [
    { actor, id: 1 },
    { actor, id: 1, pre: anyPre },
  ],
  'user.insert': [{ email: 'e', name: 'n', avatarUrl: null }],
  'webhook.insert': [{ workspaceId: 1, url: 'u', events: ['task.created'], secret: 's', max: 1 }],
  'webhook.update': [{ id: 1, patch: { url: 'u', events: ['task.created'], active: true } }],
  'webhook.delete': [{ id: 1 }],
  'workspace.insert': [{ ownerId: 1, body: { name: 'w' }, slug: 's', derived: false }],
  'workspace.update': [
    { actor, id: 1, role: 'owner', patch: all(workspaces.WORKSPACE_TABLE.columns) },
    { actor, id: 1, role: 'owner', patch: one(workspaces.WORKSPACE_TABLE.columns) },
  ],
};

/** A read statement rendered without a database: its name, the shape its sample stands for, and its text. */
export interface ReadSample {
  name: string;
  shape: string;
  text: () => string;
}

/** List tasks (taskListSql) for a restricted member and the query string `pairs`. */
const taskList = (shape: string, pairs: [string, string][]): ReadSample => ({
  name: 'task.list',
  shape,
  text: () => taskListSql({ workspaceId: 1, membership }, 1, parseTaskQuery(pairs, { workspaceId: 1, userId: 1 })).sql,
});

/** The main read statements built by pure functions, by domain: one sample per shape shown. */
export const READS: Record<string, readonly ReadSample[]> = {
  tasks: [
    taskList('no filters, default sort, offset pages', []),
    taskList('every filter, two sort keys', [
      ['list_id', '1'],
      ['status_id', '1'],
      ['status_category', 'in_progress'],
      ['assignee_id', 'me'],
      ['label_id', '1'],
      ['priority', 'high'],
      ['parent_id', '1'],
      ['due_after', '2026-01-01'],
      ['due_before', '2026-02-01'],
      ['created_after', '2026-01-01'],
      ['updated_after', '2026-01-01'],
      ['q', 'word'],
      ['sort', '-priority,title'],
    ]),
    // Issue 37: a filtered keyset page walks the sort's order first; a sort that begins with priority, a branch a priority.
    taskList('a filter, keyset page (the walk, then the planned statement after it)', [
      ['label_id', '1'],
      ['include_total', 'false'],
    ]),
    taskList('a filter, keyset page sorted by priority then due date', [
      ['label_id', '1'],
      ['sort', 'priority,due_date'],
      ['include_total', 'false'],
    ]),
  ],
};

/**
 * `text` laid out for reading: trailing blanks dropped, and each top-level part (a line at column 0, such as a CTE)
 * with its continuation lines re-indented two spaces in, keeping their relative indentation (the builders' texts
 * carry their source files' indentation).
 */
export function normalise(text: string): string {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const indent = (l: string) => /^ */.exec(l)![0].length;
  const out: string[] = [];
  for (let start = 0; start < lines.length;) {
    let end = start + 1;
    while (end < lines.length && (indent(lines[end]) > 0 || !lines[end])) end++;
    const rest = lines.slice(start + 1, end);
    const cut = Math.min(...rest.filter((l) => l).map(indent));
    out.push(lines[start], ...rest.map((l) => (l ? `  ${l.slice(cut)}` : l)));
    start = end;
  }
  return out.join('\n');
}

/**
 * The queries files: path under src/ (`<domain>/<domain>.queries.sql`) → text. Each statement's
 * shapes in its samples' order (a shape rendered once), a comment header naming statement and shape.
 * Throws for a statement without samples.
 */
export function renderQueryFiles(): Map<string, string> {
  const files = new Map<string, string[]>();
  for (const { domain, statement } of registeredStatements()) {
    const samples = SAMPLES[statement.name];
    if (!samples?.length) throw new Error(`write statement ${statement.name} has no samples in src/queries.catalog.ts`);
    const blocks = files.get(domain) ?? [];
    const seen = new Set<string>();
    for (const sample of samples) {
      const { shape, text } = statement.shapeText(sample);
      if (seen.has(shape)) continue;
      seen.add(shape);
      blocks.push(`-- ${statement.name}${shape ? ` (shape ${shape})` : ''}\n${normalise(text)};\n`);
    }
    files.set(domain, blocks);
  }
  for (const [domain, reads] of Object.entries(READS)) {
    const blocks = files.get(domain) ?? [];
    for (const read of reads) blocks.push(`-- ${read.name} (read: ${read.shape})\n${normalise(read.text())};\n`);
    files.set(domain, blocks);
  }
  const header = '-- Generated by `npm run queries` from the repositories (src/queries.catalog.ts): do not edit.\n\n';
  return new Map([...files].map(([domain, blocks]) => [`${domain}/${domain}.queries.sql`, header + blocks.join('\n')]));
}
