import { DataSource } from 'typeorm';

import { DEFAULT_TIMEOUTS } from '../../src/config/timeouts';
import { createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 16: pooled connections stay open between bursts (DB_POOL_IDLE_TIMEOUT_MS, 0 = kept by
 * default), so their prepared statements and warm backends are reused; pg's own 10 s made an
 * A/B run's every other first scenario reconnect and re-plan (p99 330-400 ms against 40-55 ms).
 * With 0, pg arms no idle timer when a connection is handed back (7 us of a get task's CPU).
 */

interface PoolState {
  options: { idleTimeoutMillis: number };
  totalCount: number;
}
const poolOf = (t: TestApp): PoolState => (t.app.get(DataSource).driver as unknown as { master: PoolState }).master;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('pool idle timeout (issue 16)', () => {
  describe('by default', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(async () => {
      await t.close();
    });

    it('keeps unused connections, with no idle timer', async () => {
      expect(DEFAULT_TIMEOUTS.dbIdle).toBe(0);
      expect(poolOf(t).options.idleTimeoutMillis).toBe(0);
      await t.app.get(DataSource).query('SELECT 1');
      await sleep(300);
      expect(poolOf(t).totalCount).toBeGreaterThan(0);
    });
  });

  describe('with DB_POOL_IDLE_TIMEOUT_MS=100', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { DB_POOL_IDLE_TIMEOUT_MS: '100' } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('closes connections unused for that long', async () => {
      expect(poolOf(t).options.idleTimeoutMillis).toBe(100);
      await t.app.get(DataSource).query('SELECT 1');
      expect(poolOf(t).totalCount).toBeGreaterThan(0);
      const deadline = Date.now() + 5_000;
      while (poolOf(t).totalCount > 0 && Date.now() < deadline) await sleep(50);
      expect(poolOf(t).totalCount).toBe(0);
    });
  });
});
