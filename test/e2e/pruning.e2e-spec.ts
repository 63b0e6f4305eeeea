import { SCOPES } from '../../src/common/auth/scope';
import { ScheduledTasks } from '../../src/common/background/scheduled-tasks';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 31 item 5: expired Idempotency-Keys (D35) and events past
 * EVENTS_RETENTION_DAYS (D37) are pruned on the job queue's crontab, once a
 * minute across all processes, in batches until none is left. Measured in rows,
 * not time: one run removes a backlog of BACKLOG rows, more than a minute of
 * inserts at MAX_INSERTS_PER_SECOND (over ten times the writes per second one
 * process serves), so pruning keeps up with any insert rate the service reaches.
 */

const MAX_INSERTS_PER_SECOND = 1_000;
const BACKLOG = 100_000;
const KEPT = 50;

/** An app (WEBHOOK_WORKER: whether it runs the job queue) with a key and a workspace, and the tests' statements on it. */
function useApp(worker: boolean) {
  let t: TestApp;
  let ids: Record<string, number>;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_WORKER: String(worker), EVENTS_RETENTION_DAYS: '30' } });
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@pruning.test', name: 'Alice' }],
      api_keys: [{ ref: 'k', user: 'alice', key: 'svc_pruning_owner', scopes: [...SCOPES] }],
      workspaces: [{ ref: 'ws', name: 'Pruning', slug: 'pruning', owner: 'alice' }],
    });
  });
  afterAll(async () => {
    await t.close();
  });
  return {
    scheduled: () => t.app.get(ScheduledTasks),
    query: <T>(sql: string, params: unknown[] = []): Promise<T> => t.db.ds.query(sql, params),
    task(name: string) {
      const found = t.app
        .get(ScheduledTasks)
        .list()
        .find((s) => s.name === name);
      if (!found) throw new Error(`no scheduled task ${name}`);
      return found;
    },
    addKeys: (n: number, expired: boolean, prefix: string) =>
      t.db.ds.query(
        `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, token, claimed_at, expires_at, status, body)
         SELECT $1, $2 || g, '\\x00', gen_random_uuid(), now(), now() + ($3::int * interval '1 hour'), 201, '{}' FROM generate_series(1, $4) g`,
        [ids.k, prefix, expired ? -1 : 1, n],
      ),
    addEvents: (n: number, ageDays: number) =>
      t.db.ds.query(
        `INSERT INTO events (id, workspace_id, type, occurred_at, data)
         SELECT nextval('events_id_seq'), $1, 'label.created', now() - ($2::int * interval '1 day'), '{"label_id": 1}' FROM generate_series(1, $3)`,
        [ids.ws, ageDays, n],
      ),
    count: async (sql: string) => ((await t.db.ds.query(sql)) as { n: number }[])[0].n,
  };
}

describe('pruning runs (issue 31; D35, D37)', () => {
  // No job queue in this app: the runs below are the only ones.
  const { task, addKeys, addEvents, count } = useApp(false);

  it(`one run removes ${BACKLOG} expired keys (over a minute of inserts at ${MAX_INSERTS_PER_SECOND}/s) and keeps the live ones`, async () => {
    expect(BACKLOG).toBeGreaterThan(60 * MAX_INSERTS_PER_SECOND);
    await addKeys(BACKLOG, true, 'old-');
    await addKeys(KEPT, false, 'live-');
    expect(await task('prune_idempotency_keys').run()).toBe(BACKLOG);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= now()`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE 'live-%'`)).toBe(KEPT);
    expect(await task('prune_idempotency_keys').run()).toBe(0);
  }, 120_000);

  it(`one run removes ${BACKLOG} events past retention and keeps the recent ones`, async () => {
    await addEvents(BACKLOG, 31);
    await addEvents(KEPT, 29);
    expect(await task('prune_events').run()).toBe(BACKLOG);
    expect(await count(`SELECT count(*)::int AS n FROM events WHERE occurred_at < now() - interval '30 days'`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM events WHERE occurred_at >= now() - interval '30 days'`)).toBe(KEPT);
    expect(await task('prune_events').run()).toBe(0);
  }, 120_000);
});

describe('pruning on the job queue crontab (issue 31)', () => {
  const { scheduled, query, addKeys, count } = useApp(true);

  it('both tasks are on the crontab, every minute', async () => {
    expect(
      scheduled()
        .list()
        .map((s) => [s.name, s.match]),
    ).toEqual([
      ['prune_idempotency_keys', '* * * * *'],
      ['prune_events', '* * * * *'],
    ]);
    const known = await query<{ identifier: string }[]>(`SELECT identifier FROM graphile_worker._private_known_crontabs ORDER BY identifier`);
    expect(known.map((k) => k.identifier)).toEqual(['prune_events', 'prune_idempotency_keys']);
  });

  it('the job queue runs a pruning job it is given', async () => {
    await addKeys(10, true, 'queued-');
    await query(`SELECT graphile_worker.add_job('prune_idempotency_keys', '{}'::json)`);
    const deadline = Date.now() + 20_000;
    while ((await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE 'queued-%'`)) > 0) {
      if (Date.now() > deadline) throw new Error('the queued pruning job did not run within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 30_000);
});
