import { spawnSync } from 'child_process';
import { readFileSync, rmSync } from 'fs';
import { join } from 'path';

import { createTestDatabase, TestDatabase } from '../setup/database';
import { ensureBuilt, ROOT, ServerProcess, startServer } from '../setup/server-process';

/**
 * Issue 12: the README's shell blocks run as printed. On a fresh database
 * with the demo data (`npm run cli -- demo`, as a first `npm start` loads it)
 * and the built server listening, bash runs the "world from scratch" block and
 * every block of "API by example", with only the placeholders a reader fills
 * in replaced (the demo key, the port). Every curl must answer below 400.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README's long sections moved here (issue 33): every call by example, the typed client. */
const EXAMPLES = readFileSync(join(ROOT, 'docs', 'examples.md'), 'utf8');

/** The ```bash blocks of `text` (the README unless given) between `from` and `to` (headings or phrases). */
function bashBlocks(from: string, to: string, text = README): string[] {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return [...text.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
}

// curl that fails the script on a status of 400 or more (printing the answer), and an `open` and `xdg-open` that fetch.
const PRELUDE = `set -euo pipefail
curl() {
  local out code
  out=$(command curl -sS -w '\\n%{http_code}' "$@")
  code=\${out##*$'\\n'}
  if [ "$code" -ge 400 ]; then echo "curl $* answered $code: \${out%$'\\n'*}" >&2; return 1; fi
  echo "\${out%$'\\n'*}"
}
open() { command curl -sSf -o /dev/null "$1"; }
xdg-open() { command curl -sSf -o /dev/null "$1"; }
`;

function bash(script: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', PRELUDE + script], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let db: TestDatabase;
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase();
  server = await startServer({ DATABASE_URL: db.url, MIGRATIONS_RUN: 'false' });
  const demo = spawnSync('npm', ['run', 'cli', '--', 'demo'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(server.port), LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  expect(demo.status).toBe(0);
  // Only the two lines of the demo on stdout, with the server's real port (npm's banner goes to stderr).
  const match = /^Demo API key: (svc_[0-9a-f]{64})\ncurl -H "Authorization: Bearer svc_[0-9a-f]{64}" http:\/\/localhost:(\d+)\/api\/v1\/me\n$/.exec(
    demo.stdout,
  );
  expect(match).not.toBeNull();
  expect(Number(match![2])).toBe(server.port);
  key = match![1];
}, 180_000);

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  rmSync(join(ROOT, 'ids.json'), { force: true });
  await db?.drop();
});

const port = (script: string) => script.replaceAll('localhost:3000', `localhost:${server.port}`);

it('every block of "API by example" (docs/examples.md) runs as printed on the demo workspace', () => {
  const [setup, ...blocks] = bashBlocks('## API by example', '## API documentation', EXAMPLES);
  expect(setup).toContain('KEY=svc_...');
  expect(blocks.length).toBeGreaterThanOrEqual(6);
  const r = bash(port(setup.replace('KEY=svc_...', `KEY=${key}`)) + blocks.map(port).join('\n'), {});
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}, 120_000);

it('"Safe retries and edits" do what they say: one task for two keyed POSTs, the retry replayed; the PATCH under If-Match applies, and again is 412', async () => {
  const [setup] = bashBlocks('## API by example', '## API documentation', EXAMPLES);
  const [retry, edit] = bashBlocks('Safe retries and edits.', 'Unauthenticated:', EXAMPLES);
  const title = 'Draft the changelog';
  const before = Number((await db.ds.query(`SELECT count(*)::int AS n FROM tasks WHERE title = $1`, [title]))[0].n);
  const r = bash(port(setup.replace('KEY=svc_...', `KEY=${key}`)) + port(retry), {});
  expect([r.status, r.stderr]).toEqual([0, '']);
  // The examples block above ran the same lines already: both are replays then; on their own, the second is.
  expect(r.stdout.match(/^idempotent-replayed: true\s*$/gim)).toHaveLength(before > 0 ? 2 : 1);
  const bodies = r.stdout.split('\n').filter((line) => line.startsWith('{'));
  expect(bodies).toHaveLength(2);
  expect(bodies[1]).toBe(bodies[0]);
  expect(Number((await db.ds.query(`SELECT count(*)::int AS n FROM tasks WHERE title = $1`, [title]))[0].n)).toBe(Math.max(before, 1));

  // As on a fresh demo: task 1 is urgent, so the edit changes it (the examples above may have run it already).
  await db.ds.query(`UPDATE tasks SET priority = 'urgent' WHERE id = 1`);
  const e = bash(port(setup.replace('KEY=svc_...', `KEY=${key}`)) + port(edit) + 'echo "ETAG=$ETAG"\n', {});
  expect([e.status, e.stderr]).toEqual([0, '']);
  const etag = /^ETAG=("[A-Za-z0-9_-]{43}")$/m.exec(e.stdout)?.[1];
  expect(etag).toBeDefined();
  expect(JSON.parse(e.stdout.split('\n')[0]).priority).toBe('low');
  const again = await fetch(`${server.url}/api/v1/tasks/1`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'if-match': etag! },
    body: JSON.stringify({ priority: 'low' }),
  });
  const current = await fetch(`${server.url}/api/v1/tasks/1`, { headers: { authorization: `Bearer ${key}` } });
  // The tag was taken before the edit; the edit changed the task, so the stale tag no longer matches.
  expect(current.headers.get('etag')).not.toBe(etag);
  expect([again.status, await again.json()]).toEqual([412, { error: 'Precondition failed' }]);
}, 120_000);

it('every block of "Files" runs as printed: multipart upload, declaration, upload link, confirm, download, delete', async () => {
  const [setup, ...blocks] = bashBlocks('## Files', '**Local storage**');
  expect(setup).toContain('KEY=svc_...');
  expect(blocks).toHaveLength(3);
  const r = bash(port(setup.replace('KEY=svc_...', `KEY=${key}`)) + blocks.map(port).join('\n'), {});
  expect([r.status, r.stderr]).toEqual([0, '']);
  // The multipart upload, then the declared one, both with the same 13 bytes; the declared one deleted at the end.
  const rows = await db.ds.query(`SELECT file_name, file_size, mime_type, confirmed FROM attachments WHERE file_name = 'notes.txt' ORDER BY id`);
  expect(rows).toEqual([{ file_name: 'notes.txt', file_size: 13, mime_type: 'text/plain', confirmed: true }]);
}, 120_000);

// After the examples: it adds rows, which would move the ids the examples name.
it('"A world from scratch" runs as printed after the demo data', () => {
  const [block] = bashBlocks('A world from scratch:', '## API by example');
  const r = bash(port(block), { DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  expect(r.stderr).not.toMatch(/answered|Error/);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{"id"'))).email).toBe('ann@example.com');
  expect(Object.keys(JSON.parse(readFileSync(join(ROOT, 'ids.json'), 'utf8')))).toContain('acme');
}, 120_000);
