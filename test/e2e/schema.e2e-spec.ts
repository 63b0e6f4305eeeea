import { createTestDatabase, TestDatabase } from '../setup/database';

describe('schema (migrations)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('has an index whose leading column is each foreign key', async () => {
    const rows: { table: string; column: string }[] = await db.ds.query(`
      SELECT c.conrelid::regclass::text AS table, a.attname AS column
        FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.contype = 'f'
         AND NOT EXISTS (
           SELECT 1 FROM pg_index i
            WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`);
    expect(rows).toEqual([]);
  });

  it('formats timestamps as convention 2 says', async () => {
    const [row] = await db.ds.query(`SELECT api_ts('2025-01-15 09:30:00.123456+02') AS ts`);
    expect(row.ts).toBe('2025-01-15T07:30:00.123Z');
  });

  describe('what task answers read from a custom field’s own row (D18, D19)', () => {
    let ws: number;
    let user: number;
    const one = async (sql: string, params: unknown[] = []): Promise<number> => (await db.ds.query(sql, params))[0].id;
    beforeAll(async () => {
      user = await one(`INSERT INTO users (email, name) VALUES ('scope@example.com', 'Scope') RETURNING id`);
      ws = await one(`INSERT INTO workspaces (name, slug, owner_id) VALUES ('Scope', 'scope', $1) RETURNING id`, [user]);
    });
    const field = (name: string, type: string, config: unknown = null) =>
      one(
        `INSERT INTO custom_fields (workspace_id, name, type, config, position, is_scope_restricted, has_allowed_users)
         VALUES ($1, $2, $3, $4, 1, true, true) RETURNING id`,
        [ws, name, type, config === null ? null : JSON.stringify(config)],
      );
    const head = async (id: number): Promise<string> => (await db.ds.query(`SELECT task_entry_head FROM custom_fields WHERE id = $1`, [id]))[0].task_entry_head;

    it('keeps each field’s entry up to its value, config as task answers show it, whenever the field changes', async () => {
      const stars = await field('Stars "5"', 'rating', { iconName: 'star', color: 'orange' });
      expect(await head(stars)).toBe(
        `{"id":${stars},"name":"Stars \\"5\\"","type":"rating","config":{"icon": "star", "color": "orange"},"position":1,"value":`,
      );
      await db.ds.query(`UPDATE custom_fields SET name = 'Stars', position = 4 WHERE id = $1`, [stars]);
      expect(await head(stars)).toBe(`{"id":${stars},"name":"Stars","type":"rating","config":{"icon": "star", "color": "orange"},"position":4,"value":`);
      const notes = await field('Notes', 'text', { ignored: true });
      expect(await head(notes)).toBe(`{"id":${notes},"name":"Notes","type":"text","config":null,"position":1,"value":`);
      const stage = await field('Stage', 'dropdown', { options: ['a', 'b'] });
      expect(JSON.parse((await head(stage)) + '"a"}')).toEqual({
        id: stage,
        name: 'Stage',
        type: 'dropdown',
        config: { options: ['a', 'b'] },
        position: 1,
        value: 'a',
      });
    });

    it('keeps each field’s grant, override and allowed-user arrays equal to their tables, cascades included', async () => {
      const other = await one(`INSERT INTO users (email, name) VALUES ('other@example.com', 'Other') RETURNING id`);
      const folder = (name: string) => one(`INSERT INTO folders (workspace_id, name, position) VALUES ($1, $2, 1) RETURNING id`, [ws, name]);
      const [f1, f2] = [await folder('F1'), await folder('F2')];
      const list = (folderId: number, name: string) =>
        one(`INSERT INTO lists (workspace_id, folder_id, name, position) VALUES ($1, $2, $3, 1) RETURNING id`, [ws, folderId, name]);
      const [l1, l2, l3] = [await list(f1, 'L1'), await list(f2, 'L2'), await list(f2, 'L3')];
      const id = await field('X', 'text');
      const arrays = async () =>
        (
          await db.ds.query(
            `SELECT granted_folder_ids AS folders, granted_list_ids AS granted, denied_list_ids AS denied, allowed_user_ids AS users FROM custom_fields WHERE id = $1`,
            [id],
          )
        )[0];
      const sorted = (...ids: number[]) => ids.sort((a, b) => a - b);
      expect(await arrays()).toEqual({ folders: [], granted: [], denied: [], users: [] });

      await db.ds.query(`INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id) VALUES ($1, $2, $4), ($1, $3, $4)`, [id, f2, f1, ws]);
      await db.ds.query(
        `INSERT INTO custom_field_list_overrides (field_id, list_id, workspace_id, access) VALUES ($1, $2, $5, 'granted'), ($1, $3, $5, 'denied'), ($1, $4, $5, 'denied')`,
        [id, l1, l3, l2, ws],
      );
      await db.ds.query(`INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id) VALUES ($1, $2, $4), ($1, $3, $4)`, [id, other, user, ws]);
      expect(await arrays()).toEqual({ folders: sorted(f1, f2), granted: [l1], denied: sorted(l2, l3), users: sorted(user, other) });

      // An override changing sides, a list deleted (its override goes by cascade), a folder deleted (its grant and lists too).
      await db.ds.query(`UPDATE custom_field_list_overrides SET access = 'granted' WHERE field_id = $1 AND list_id = $2`, [id, l2]);
      await db.ds.query(`DELETE FROM lists WHERE id = $1`, [l1]);
      expect(await arrays()).toEqual({ folders: sorted(f1, f2), granted: [l2], denied: [l3], users: sorted(user, other) });
      await db.ds.query(`DELETE FROM folders WHERE id = $1`, [f2]);
      await db.ds.query(`DELETE FROM custom_field_allowed_users WHERE field_id = $1 AND user_id = $2`, [id, other]);
      expect(await arrays()).toEqual({ folders: [f1], granted: [], denied: [], users: [user] });

      // The workspace goes with its fields, grants and overrides in one cascade.
      await db.ds.query(`DELETE FROM workspaces WHERE id = $1`, [ws]);
      expect(await db.ds.query(`SELECT id FROM custom_fields WHERE workspace_id = $1`, [ws])).toEqual([]);
    });
  });

  describe('what task answers read from a status’s, user’s and label’s own row (issue 37)', () => {
    /** Hostile text: quotes, a backslash, control characters, a non-BMP character, a would-be HTML tag. */
    const HOSTILE = 'Q "x" \\ \n\t\u0001 é 😀 </script>';
    const embedded = async (table: string, id: number): Promise<string> =>
      (await db.ds.query(`SELECT embedded_json FROM ${table} WHERE id = $1`, [id]))[0].embedded_json;

    it('keeps each row’s object exactly as answers serialize it, on insert and on every update of its columns', async () => {
      const one = async (sql: string, params: unknown[]): Promise<number> => (await db.ds.query(sql, params))[0].id;
      const user = await one(`INSERT INTO users (email, name) VALUES ('embedded@example.com', $1) RETURNING id`, [HOSTILE]);
      expect(await embedded('users', user)).toBe(JSON.stringify({ id: user, name: HOSTILE, avatar_url: null }));
      await db.ds.query(`UPDATE users SET avatar_url = 'https://avatars.example/a.png', name = 'Renamed' WHERE id = $1`, [user]);
      expect(await embedded('users', user)).toBe(JSON.stringify({ id: user, name: 'Renamed', avatar_url: 'https://avatars.example/a.png' }));

      const ws = await one(`INSERT INTO workspaces (name, slug, owner_id) VALUES ('Embedded', 'embedded', $1) RETURNING id`, [user]);
      const status = await one(`INSERT INTO statuses (workspace_id, name, category, position) VALUES ($1, $2, 'pending', 1) RETURNING id`, [ws, HOSTILE]);
      expect(await embedded('statuses', status)).toBe(JSON.stringify({ id: status, name: HOSTILE, icon: null, color: null, category: 'pending' }));
      await db.ds.query(`UPDATE statuses SET icon = 'check', color = 'green', category = 'completed' WHERE id = $1`, [status]);
      expect(await embedded('statuses', status)).toBe(JSON.stringify({ id: status, name: HOSTILE, icon: 'check', color: 'green', category: 'completed' }));

      const label = await one(`INSERT INTO labels (workspace_id, name) VALUES ($1, $2) RETURNING id`, [ws, HOSTILE]);
      expect(await embedded('labels', label)).toBe(JSON.stringify({ id: label, name: HOSTILE, color: null }));
      await db.ds.query(`UPDATE labels SET color = 'red' WHERE id = $1`, [label]);
      expect(await embedded('labels', label)).toBe(JSON.stringify({ id: label, name: HOSTILE, color: 'red' }));
    });
  });
});

/**
 * Issue 10: the migrations are the one schema source (there are no TypeORM
 * entity classes: repositories query with SQL and map rows themselves). So the
 * schema is checked for the rules every table follows, and the migrations for
 * reverting cleanly.
 */
describe('the migrated schema', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  /** Tables, columns (type, nullability, default), indexes, constraints and functions: what a migration can change. */
  async function signature(): Promise<string[]> {
    const rows: { line: string }[] = await db.ds.query(`
      SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) AS line
        FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'migrations'
      UNION ALL
      SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'migrations'
      UNION ALL
      SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid <> 'migrations'::regclass
      UNION ALL
      SELECT format('function %s', p.oid::regprocedure) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
      ORDER BY 1`);
    return rows.map((r) => r.line);
  }

  it('gives every table a primary key', async () => {
    const rows: { table: string }[] = await db.ds.query(`
      SELECT c.relname AS table FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')`);
    expect(rows).toEqual([]);
  });

  it('stores every timestamp with its time zone (convention 2 answers in UTC)', async () => {
    const rows: { column: string }[] = await db.ds.query(`
      SELECT table_name || '.' || column_name AS column FROM information_schema.columns
       WHERE table_schema = 'public' AND data_type = 'timestamp without time zone'`);
    expect(rows).toEqual([]);
  });

  it('lets PostgreSQL inline the SQL functions that answers call per row (no function call per timestamp)', async () => {
    const plan: { 'QUERY PLAN': string }[] = await db.ds.query(`EXPLAIN (VERBOSE) SELECT api_ts(created_at) FROM tasks`);
    const output = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(output).toMatch(/Output: to_char\(/);
    expect(output).not.toMatch(/api_ts/);
  });

  it('reverts every migration and applies them again to the same schema', async () => {
    const before = await signature();
    expect(before.length).toBeGreaterThan(100);
    for (let i = 0; i < db.ds.migrations.length; i++) await db.ds.undoLastMigration({ transaction: 'each' });
    expect(await signature()).toEqual([]);
    await db.ds.runMigrations({ transaction: 'all' });
    expect(await signature()).toEqual(before);
  });
});
