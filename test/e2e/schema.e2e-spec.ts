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
