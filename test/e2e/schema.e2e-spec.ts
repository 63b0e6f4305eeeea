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
