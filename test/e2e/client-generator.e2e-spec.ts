import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ROOT } from '../setup/paths';

/**
 * Issue 10: the committed openapi.json serves a second client generator as
 * well as openapi-typescript (clients/typescript). @hey-api/openapi-ts
 * generates a fetch client from it, and a small program that a client
 * developer would write type-checks against that client with `tsc --noEmit`
 * (integer ids, path parameters named for their resource, typed bodies,
 * answers and errors); a program passing a string id does not.
 */

const BIN = join(ROOT, 'node_modules', '.bin');

/** What a client developer writes: create, get, move and list tasks, reading typed answers and errors. */
const PROGRAM = `
import { client } from './generated/client.gen.js';
import { createComment, createTask, deleteTask, getTask, listTasks, updateTask } from './generated/sdk.gen.js';
import type { Task, TaskPage } from './generated/types.gen.js';

client.setConfig({ baseUrl: 'http://localhost:3000', headers: { Authorization: 'Bearer svc_example' } });

export async function walkThrough(): Promise<number> {
  const created = await createTask({ body: { list_id: 3, title: 'Ship it', priority: 'high', assignee_ids: [7] } });
  if (created.error) return created.error.error.length;
  const id: number = created.data.id;
  const task: Task | undefined = (await getTask({ path: { task_id: id } })).data;
  const moved = await updateTask({ path: { task_id: id }, body: { list_id: '4', due_date: null, custom_fields: [{ id: 2, value: null }] } });
  const listed = (await listTasks({ path: { workspace_id: 1 }, query: { page: 1, limit: 50 } })).data;
  // Offset pages carry page numbers; keyset pages (cursor or include_total=false) carry next_cursor.
  const page: TaskPage | undefined = listed && 'total_pages' in listed ? listed : undefined;
  const subtaskId: number | undefined = page?.data[0]?.subtasks[0]?.id;
  const keyset = (await listTasks({ path: { workspace_id: 1 }, query: { priority: ['urgent', 'high'], sort: '-due_date', include_total: 'false' } })).data;
  const next: string | null | undefined = keyset && 'next_cursor' in keyset ? keyset.next_cursor : undefined;
  if (next) await listTasks({ path: { workspace_id: 1 }, query: { priority: ['urgent', 'high'], sort: '-due_date', cursor: next } });
  const comment = await createComment({ path: { task_id: id }, body: { content: '<p>on it</p>' } });
  await deleteTask({ path: { task_id: id } });
  return (task?.identifier ?? 0) + (moved.data?.list_id ?? 0) + (subtaskId ?? 0) + (comment.data?.user_id ?? 0) + page!.total_pages;
}
`;

/** The same client called with a string id and an unknown parameter name: must not type-check. */
const WRONG_PROGRAM = `
import { getTask, listTasks } from './generated/sdk.gen.js';

export const byString = getTask({ path: { task_id: '41' } });
export const byOldName = listTasks({ path: { id: 1 } });
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
    lib: ['es2022', 'dom', 'dom.iterable'], types: [],
  },
};

describe('a second generator: @hey-api/openapi-ts (issue 10)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heyapi-client-'));
    const r = spawnSync(join(BIN, 'openapi-ts'), ['-i', join(ROOT, 'openapi.json'), '-o', join(dir, 'generated')], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`openapi-ts failed: ${r.stderr || r.stdout}`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Type-checks `source` against the generated client; tsc's diagnostics, empty when it compiles. */
  function typecheck(name: string, source: string): { status: number | null; output: string } {
    writeFileSync(join(dir, `${name}.ts`), source);
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ ...TSCONFIG, files: [`${name}.ts`] }));
    const r = spawnSync(join(BIN, 'tsc'), ['-p', join(dir, `tsconfig.${name}.json`)], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, output: r.stdout + r.stderr };
  }

  it('generates one function per operation, with the path parameter named for its resource', () => {
    const sdk = readFileSync(join(dir, 'generated', 'sdk.gen.ts'), 'utf8');
    expect(sdk).toMatch(/export const getTask = [\s\S]*?url: '\/api\/v1\/tasks\/\{task_id\}'/);
    // 27 API operations (D1, with D37's events feed), 5 webhook operations (D38), 10 workspace, member and API-key
    // operations (D39) and 4 public ones (health probes, metrics).
    expect([...sdk.matchAll(/^export const (\w+) = /gm)].map((m) => m[1]).length).toBe(46);
    expect(sdk).toMatch(/export const listEvents = [\s\S]*?url: '\/api\/v1\/workspaces\/\{workspace_id\}\/events'/);
    expect(sdk).toMatch(/export const getReadiness = [\s\S]*?url: '\/health\/ready'/);
    const types = readFileSync(join(dir, 'generated', 'types.gen.ts'), 'utf8');
    expect(types).toMatch(/export type GetTaskData = \{[\s\S]*?path: \{[\s\S]*?task_id: number;/);
  });

  it('type-checks a client program with tsc --noEmit', () => {
    expect(typecheck('program', PROGRAM)).toEqual({ status: 0, output: '' });
  }, 120_000);

  it('rejects a string id and the old parameter name `id`', () => {
    const { status, output } = typecheck('wrong', WRONG_PROGRAM);
    expect(status).not.toBe(0);
    expect(output).toContain("wrong.ts(4,");
    expect(output).toContain("Type 'string' is not assignable to type 'number'");
    expect(output).toMatch(/wrong\.ts\(5,.*'id' does not exist/);
  }, 120_000);
});
