import { spawnSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { hashApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { ensureDemo } from '../../src/fixtures/demo';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { internalReferences } from '../setup/internal-references';
import { ROOT } from '../setup/paths';
import { tsEntryScript } from '../setup/ts-child';

/**
 * The CLI of D32 as a child process on this file's own database. It runs the
 * TypeScript sources (compiled on the fly, as Jest does), so it tests this
 * tree rather than a stale dist/; one test goes through `npm run cli` itself.
 */

// The CLI entry, run from the TypeScript sources, with the arguments given after the script.
const RUN_CLI = tsEntryScript('src/cli.ts', 'cli');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let db: TestDatabase;
let tmp: string;

function cli(...args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  delete env.npm_lifecycle_event;
  const r = spawnSync(process.execPath, ['-e', RUN_CLI, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => db.ds.query(sql, params);

beforeAll(async () => {
  db = await createTestDatabase();
  tmp = mkdtempSync(join(tmpdir(), 'wt-cli-'));
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await db.drop();
});

describe('users, workspaces, members', () => {
  let owner: number;
  let guest: number;

  it('users create prints the user', async () => {
    const r = cli('users', 'create', '--email', 'owner@cli.example.com', '--name', '  Owen  ', '--avatar-url', 'https://img.example.com/o.png');
    expect(r.status).toBe(0);
    const user = JSON.parse(r.stdout);
    owner = user.id;
    const [row] = await q('SELECT id, email, name, avatar_url, api_ts(created_at) AS created_at FROM users WHERE id = $1', [owner]);
    expect(user).toEqual(row);
    expect(row).toEqual({ id: owner, email: 'owner@cli.example.com', name: 'Owen', avatar_url: 'https://img.example.com/o.png', created_at: user.created_at });
    guest = JSON.parse(cli('users', 'create', '--email', 'guest@cli.example.com', '--name', 'Gail').stdout).id;
  });

  it('users create refuses a taken email (ignoring case) with exit 1', () => {
    const r = cli('users', 'create', '--email', 'OWNER@cli.example.com', '--name', 'Again');
    expect(r).toEqual({ status: 1, stdout: '', stderr: 'A user with email OWNER@cli.example.com already exists\n' });
  });

  it('workspaces create gives the default statuses and the owner membership', async () => {
    const r = cli('workspaces', 'create', '--name', 'Cli Co', '--slug', 'cli-co', '--owner', String(owner));
    expect(r.status).toBe(0);
    const ws = JSON.parse(r.stdout);
    expect(Object.keys(ws).sort()).toEqual(['color', 'created_at', 'description', 'icon', 'id', 'image_url', 'name', 'owner_id', 'slug', 'statuses']);
    expect(ws).toMatchObject({ name: 'Cli Co', slug: 'cli-co', owner_id: owner, description: null, icon: null, color: null, image_url: null });
    expect(await q('SELECT name, color, category, position FROM statuses WHERE workspace_id = $1 ORDER BY position', [ws.id])).toEqual([
      { name: 'To Do', color: 'gray', category: 'pending', position: 1 },
      { name: 'In Progress', color: 'gray', category: 'in_progress', position: 2 },
      { name: 'Done', color: 'gray', category: 'completed', position: 3 },
      { name: 'Cancelled', color: 'gray', category: 'cancelled', position: 4 },
    ]);
    expect(await q('SELECT user_id, role, is_restricted, api_ts(joined_at) AS joined_at FROM workspace_members WHERE workspace_id = $1', [ws.id])).toEqual([
      { user_id: owner, role: 'owner', is_restricted: false, joined_at: ws.created_at },
    ]);

    const [folder] = await q<{ id: number }>(`INSERT INTO folders (workspace_id, name, position) VALUES ($1, 'F', 1) RETURNING id`, [ws.id]);
    const m = cli('members', 'add', '--workspace', String(ws.id), '--user', String(guest), '--role', 'viewer', '--restricted', '--folders', String(folder.id));
    expect(m.status).toBe(0);
    expect(JSON.parse(m.stdout)).toEqual({
      workspace_id: ws.id,
      user_id: guest,
      role: 'viewer',
      restricted: true,
      joined_at: expect.any(String),
      folder_ids: [folder.id],
      list_ids: [],
    });
    expect(await q('SELECT user_id, folder_id FROM member_folder_grants WHERE workspace_id = $1', [ws.id])).toEqual([{ user_id: guest, folder_id: folder.id }]);
    // D37: the CLI records no event (it runs the API's add-member statement without its event).
    expect(await q('SELECT type FROM events WHERE workspace_id = $1', [ws.id])).toEqual([]);

    expect(cli('members', 'add', '--workspace', String(ws.id), '--user', String(guest), '--role', 'admin')).toEqual({
      status: 1,
      stdout: '',
      stderr: `User ${guest} is already a member of workspace ${ws.id}\n`,
    });
  });
});

describe('keys', () => {
  let user: number;

  beforeAll(async () => {
    [{ id: user }] = await q<{ id: number }>(`INSERT INTO users (email, name) VALUES ('keys@cli.example.com', 'Kim') RETURNING id`);
  });

  it('keys create prints a svc_ key once, stored only as its hash', async () => {
    const r = cli(
      'keys',
      'create',
      '--user',
      String(user),
      '--scopes',
      'tasks:read,users:read',
      '--name',
      'ci',
      '--expires-at',
      '2030-01-15T09:30:00',
      '--json',
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.key).toMatch(/^svc_[0-9a-f]{64}$/);
    const rows = await q('SELECT id, user_id, key_hash, name, scopes, api_ts(expires_at) AS expires_at, revoked_at FROM api_keys WHERE user_id = $1', [user]);
    expect(rows).toEqual([
      {
        id: out.id,
        user_id: user,
        key_hash: hashApiKey(out.key),
        name: 'ci',
        scopes: ['tasks:read', 'users:read'],
        expires_at: '2030-01-15T09:30:00.000Z',
        revoked_at: null,
      },
    ]);
    expect(out).toEqual({
      key: out.key,
      id: out.id,
      user_id: user,
      name: 'ci',
      scopes: ['tasks:read', 'users:read'],
      expires_at: '2030-01-15T09:30:00.000Z',
      revoked_at: null,
      last_used_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('keys create without --json prints only the bare key on stdout (D32), its record on stderr', async () => {
    const r = cli('keys', 'create', '--user', String(user), '--scopes', 'users:read');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^svc_[0-9a-f]{64}\n$/);
    const key = r.stdout.trim();
    const rows = await q<{ id: number; scopes: string[] }>('SELECT id, scopes FROM api_keys WHERE key_hash = $1', [hashApiKey(key)]);
    expect(rows).toEqual([{ id: expect.any(Number), scopes: ['users:read'] }]);
    expect(r.stderr).toContain(`Created API key {"id":${rows[0].id},`);
    expect(r.stderr).not.toContain(key);
    await q('DELETE FROM api_keys WHERE id = $1', [rows[0].id]);
  });

  it('keys create refuses unknown scopes and unknown users', () => {
    expect(cli('keys', 'create', '--user', String(user), '--scopes', 'tasks:*')).toEqual({
      status: 1,
      stdout: '',
      stderr: `Unknown scope 'tasks:*'. Scopes: ${SCOPES.join(', ')}\n`,
    });
    expect(cli('keys', 'create', '--user', '99999999', '--scopes', 'tasks:read')).toEqual({ status: 1, stdout: '', stderr: 'User 99999999 not found\n' });
  });

  it("keys create holds the API's limit of 100 active keys per user (D46)", async () => {
    const [{ id: busy }] = await q<{ id: number }>(`INSERT INTO users (email, name) VALUES ('busy@cli.example.com', 'Bo') RETURNING id`);
    await q(`INSERT INTO api_keys (user_id, key_hash, scopes) SELECT $1, 'busy-' || n, '{users:read}' FROM generate_series(1, 100) n`, [busy]);
    expect(cli('keys', 'create', '--user', String(busy), '--scopes', 'users:read')).toEqual({
      status: 1,
      stdout: '',
      stderr: 'A user can hold at most 100 active API keys\n',
    });
  });

  it('keys list never prints hashes, keys revoke marks the key revoked', async () => {
    const [{ id, key_hash }] = await q<{ id: number; key_hash: string }>('SELECT id, key_hash FROM api_keys WHERE user_id = $1', [user]);
    const listed = cli('keys', 'list', '--user', String(user));
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain(key_hash);
    expect(JSON.parse(listed.stdout).map((k: Record<string, unknown>) => Object.keys(k).sort())).toEqual([
      ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes', 'user_id'],
    ]);

    const revoked = cli('keys', 'revoke', '--id', String(id));
    expect(revoked.status).toBe(0);
    const [row] = await q<{ revoked_at: string }>('SELECT api_ts(revoked_at) AS revoked_at FROM api_keys WHERE id = $1', [id]);
    expect(row.revoked_at).not.toBeNull();
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id, revoked_at: row.revoked_at });
    expect(JSON.parse(cli('keys', 'revoke', '--id', String(id)).stdout)).toMatchObject({ id, revoked_at: row.revoked_at });
    expect(cli('keys', 'revoke', '--id', '99999999')).toEqual({ status: 1, stdout: '', stderr: 'API key 99999999 not found\n' });
  });
});

describe('seed', () => {
  const world = {
    users: [{ ref: 'sd_u', email: 'seed@cli.example.com', name: 'Sid' }],
    api_keys: [{ ref: 'sd_k', user: 'sd_u', key: 'svc_seed_cli_key', scopes: ['users:read'] }],
    workspaces: [{ ref: 'sd_w', name: 'Seeded', slug: 'seeded', owner: 'sd_u', tasks: [{ ref: 'sd_t', title: 'T' }] }],
  };

  it('--out writes the ref map and prints nothing', async () => {
    const file = join(tmp, 'world.json');
    const out = join(tmp, 'ids.json');
    writeFileSync(file, JSON.stringify(world));
    const r = cli('seed', '--file', file, '--out', out);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const ids = JSON.parse(readFileSync(out, 'utf8'));
    const [u] = await q<{ id: number }>(`SELECT id FROM users WHERE email = 'seed@cli.example.com'`);
    const [w] = await q<{ id: number }>(`SELECT id FROM workspaces WHERE slug = 'seeded'`);
    const [k] = await q<{ id: number }>('SELECT id FROM api_keys WHERE key_hash = $1', [hashApiKey('svc_seed_cli_key')]);
    const [t] = await q<{ id: number }>('SELECT id FROM tasks WHERE workspace_id = $1', [w.id]);
    expect(ids).toEqual({ sd_u: u.id, sd_k: k.id, sd_w: w.id, sd_t: t.id });
  });

  it('a bad fixture exits 1 naming the ref, and writes nothing', async () => {
    const file = join(tmp, 'bad.json');
    const out = join(tmp, 'bad-ids.json');
    writeFileSync(
      file,
      JSON.stringify({
        users: [{ ref: 'bd_u', email: 'bad@cli.example.com', name: 'Bad' }],
        workspaces: [{ ref: 'bd_w', name: 'Bad', slug: 'bad', owner: 'bd_u', tasks: [{ ref: 'bd_t', title: 'T', list: 'nowhere' }] }],
      }),
    );
    const r = cli('seed', '--file', file, '--out', out);
    expect(r).toEqual({
      status: 1,
      stdout: '',
      stderr: 'Invalid fixture: task "bd_t" (workspaces[0].tasks[0]): list "nowhere" names nothing in the file\n',
    });
    expect(existsSync(out)).toBe(false);
    expect(await q(`SELECT id FROM users WHERE email = 'bad@cli.example.com'`)).toEqual([]);
  });

  it('loads the FIXTURES.md example as printed, with nothing on stderr', async () => {
    const r = cli('seed', '--file', join(ROOT, 'test', 'fixtures', 'fixtures-md-example.json'));
    expect(r).toEqual({ status: 0, stdout: expect.any(String), stderr: '' });
    const ids = JSON.parse(r.stdout);
    expect(await q('SELECT id, email FROM users WHERE id = ANY($1) ORDER BY id', [[ids.bob, ids.carol]])).toEqual([
      { id: ids.bob, email: 'bob@example.com' },
      { id: ids.carol, email: 'carol@example.com' },
    ]);
  });

  it('an undefined user ref exits 1 naming it', async () => {
    const file = join(tmp, 'undefined-user.json');
    writeFileSync(file, JSON.stringify({ workspaces: [{ ref: 'uu_w', name: 'U', slug: 'uu', owner: 'nobody' }] }));
    expect(cli('seed', '--file', file)).toEqual({
      status: 1,
      stdout: '',
      stderr: 'Invalid fixture: workspace "uu_w" (workspaces[0]): owner "nobody" names nothing in the file\n',
    });
  });

  it('without --out prints the ref map to stdout', async () => {
    const file = join(tmp, 'small.json');
    writeFileSync(file, JSON.stringify({ users: [{ ref: 'sm_u', email: 'small@cli.example.com', name: 'Small' }] }));
    const r = cli('seed', '--file', file);
    expect(r.status).toBe(0);
    const [u] = await q<{ id: number }>(`SELECT id FROM users WHERE email = 'small@cli.example.com'`);
    expect(JSON.parse(r.stdout)).toEqual({ sm_u: u.id });
  });

  it('through `npm run cli -- seed --file F --out G`, with paths relative to where npm runs', async () => {
    writeFileSync(join(tmp, 'npm-world.json'), JSON.stringify({ users: [{ ref: 'np_u', email: 'npm@cli.example.com', name: 'Npm' }] }));
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
    const r = spawnSync('npm', ['--prefix', ROOT, 'run', 'cli', '--', 'seed', '--file', 'npm-world.json', '--out', 'npm-ids.json'], {
      cwd: tmp,
      env,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status).toBe(0);
    const [u] = await q<{ id: number }>(`SELECT id FROM users WHERE email = 'npm@cli.example.com'`);
    expect(JSON.parse(readFileSync(join(tmp, 'npm-ids.json'), 'utf8'))).toEqual({ np_u: u.id });

    // Only the result on stdout: no `> work-tracking-api@… cli` banner of npm's before it.
    const listed = spawnSync('npm', ['--prefix', ROOT, 'run', 'cli', '--', 'keys', 'list', '--user', String(u.id)], {
      cwd: tmp,
      env,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect({ status: listed.status, stdout: listed.stdout }).toEqual({ status: 0, stdout: '[]\n' });
  }, 240_000);
});

describe('demo key (ensureDemo, as `npm start` and `cli demo` run it)', () => {
  it('seeds once; then an unusable saved key gets a new all-scope key of the demo owner; a saved key missing scopes gets them', async () => {
    const keyFile = join(tmp, 'demo-key.txt');
    expect((await ensureDemo(db.ds, { keyFile }))!.seeded).toBe(true);
    writeFileSync(keyFile, 'svc_revoked_or_unknown\n');
    const again = await ensureDemo(db.ds, { keyFile });
    expect(again).toEqual({ key: expect.stringMatching(/^svc_/), seeded: false });
    const stored = () => q('SELECT name, scopes, expires_at, last4 FROM api_keys WHERE key_hash = $1', [hashApiKey(again!.key)]);
    expect(await stored()).toEqual([{ name: 'demo', scopes: [...SCOPES], expires_at: null, last4: again!.key.slice(-4) }]);
    await q(`UPDATE api_keys SET scopes = '{tasks:read}' WHERE key_hash = $1`, [hashApiKey(again!.key)]);
    expect(await ensureDemo(db.ds, { keyFile })).toEqual({ key: again!.key, seeded: false });
    expect(await stored()).toEqual([{ name: 'demo', scopes: [...SCOPES], expires_at: null, last4: again!.key.slice(-4) }]);
  });
});

describe('help', () => {
  const COMMANDS = [
    [],
    ['migrate'],
    ['seed'],
    ['demo'],
    ['users'],
    ['users', 'create'],
    ['workspaces'],
    ['workspaces', 'create'],
    ['members'],
    ['members', 'add'],
    ['keys'],
    ['keys', 'create'],
    ['keys', 'revoke'],
    ['keys', 'list'],
  ];

  // Issue 10: help is user-facing text, so it names no decision number and no document outside the repository.
  it.each(COMMANDS.map((c) => [c.join(' ') || '(top level)', c] as const))('%s --help names no internal reference', (_name, command) => {
    const r = cli(...command, '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: /);
    expect(internalReferences(r.stdout + r.stderr)).toEqual([]);
  });
});
