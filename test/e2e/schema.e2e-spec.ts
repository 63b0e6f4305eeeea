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

describe('entities (TypeORM metadata) and migrations agree', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('declares every table and column the migrations create, with the same nullability', async () => {
    const rows: { table_name: string; column_name: string; is_nullable: 'YES' | 'NO' }[] = await db.ds.query(
      `SELECT table_name, column_name, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY table_name, column_name`,
    );
    const fromSchema = rows.map((r) => `${r.table_name}.${r.column_name}${r.is_nullable === 'YES' ? '?' : ''}`);
    const fromEntities = db.ds.entityMetadatas
      .flatMap((m) => m.columns.map((c) => `${m.tableName}.${c.databaseName}${c.isNullable ? '?' : ''}`))
      .sort();
    expect(fromEntities).toEqual([...fromSchema].sort());
  });
});
