import { Logger } from '@nestjs/common';
import { AddressInfo, createServer, Server, Socket } from 'net';

import { generateApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { TcpProxy } from '../setup/tcp-proxy';

/**
 * Issue 19: the rate limiter's Redis refused or silent. Requests are let
 * through at once (uncounted), one warning per outage and one line when Redis
 * is back, `work_tracking_rate_limit_store_up` on /metrics says which, and readiness does not
 * depend on Redis. Redis is reached through a TCP proxy the test cuts.
 */

/** Slowest acceptable answer while Redis fails: its 100 ms timeout plus the request's own work on a loaded machine. */
const ANSWER_WITHIN_MS = 250;
const DOWN = /^Rate-limit store \(Redis\) unavailable, requests are let through uncounted: /;
const BACK = 'Rate-limit store (Redis) available again, requests are counted';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limits when Redis fails (issue 19)', () => {
  let proxy: TcpProxy;
  let silent: Server;
  const held: Socket[] = [];
  const warn = jest.spyOn(Logger.prototype, 'warn');
  const log = jest.spyOn(Logger.prototype, 'log');
  const lines = () => [
    ...warn.mock.calls
      .map(([m]) => String(m))
      .filter((m) => DOWN.test(m))
      .map(() => 'down'),
    ...log.mock.calls
      .map(([m]) => String(m))
      .filter((m) => m === BACK)
      .map(() => 'back'),
  ];

  /** An app limiting 1,000 requests a minute per key, counting in the Redis at `redisUrl`, with a world of one key. */
  async function appOn(redisUrl: string): Promise<{ t: TestApp; key: string }> {
    const t = await createTestApp({ validateResponses: false, env: { RATE_LIMIT_PER_MINUTE: '1000', REDIS_URL: redisUrl } });
    const key = generateApiKey();
    await loadFixture(t.db.ds, {
      users: [{ ref: 'ann', email: `ann@${Date.now()}.test`, name: 'Ann' }],
      api_keys: [{ user: 'ann', key, scopes: [...SCOPES] }],
    });
    return { t, key };
  }

  const storeUp = async (t: TestApp) => /^work_tracking_rate_limit_store_up (\d)$/m.exec((await t.inject({ method: 'GET', url: '/metrics' })).body)?.[1];
  const until = async (t: TestApp, value: string) => {
    const started = Date.now();
    while ((await storeUp(t)) !== value) {
      if (Date.now() - started > 5_000) throw new Error(`work_tracking_rate_limit_store_up is not ${value} after 5 s`);
      await sleep(50);
    }
  };
  /** `n` requests in a row: their statuses, the remaining budgets they announce and the slowest one (ms). */
  const burst = async (t: TestApp, key: string, n: number) => {
    const statuses: number[] = [];
    const remaining: string[] = [];
    let slowest = 0;
    for (let i = 0; i < n; i++) {
      const started = Date.now();
      const res = await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(key) });
      slowest = Math.max(slowest, Date.now() - started);
      statuses.push(res.statusCode);
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    return { statuses, remaining, slowest };
  };
  const ready = async (t: TestApp) => (await t.inject({ method: 'GET', url: '/health/ready' })).statusCode;

  beforeAll(async () => {
    proxy = await TcpProxy.start('127.0.0.1', 6379);
    silent = createServer((socket) => {
      socket.on('error', () => undefined);
      held.push(socket);
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    warn.mockRestore();
    log.mockRestore();
    await proxy.close();
    for (const socket of held) socket.destroy();
    await new Promise((done) => silent.close(done));
  });

  it.each(['refuse', 'blackhole'] as const)(
    'Redis cut (%s): requests pass at once, one line per outage, the metric says 0, readiness stays 200; counted again once back',
    async (mode) => {
      const { t, key } = await appOn(`redis://127.0.0.1:${proxy.port}`);
      try {
        // Connected during start-up: the first requests are counted.
        expect(await storeUp(t)).toBe('1');
        const before = await burst(t, key, 3);
        expect(before.statuses).toEqual([200, 200, 200]);
        expect(before.remaining).toEqual(['999', '998', '997']);
        warn.mockClear();
        log.mockClear();

        proxy.cut(mode);
        const during = await burst(t, key, 20);
        expect(during.statuses).toEqual(Array(20).fill(200));
        expect(during.slowest).toBeLessThan(ANSWER_WITHIN_MS);
        await sleep(1_500); // reconnection attempts in the background log nothing more
        expect(await storeUp(t)).toBe('0');
        expect(await ready(t)).toBe(200);
        expect(lines()).toEqual(['down']);

        proxy.restore();
        await until(t, '1');
        const after = await burst(t, key, 2);
        expect(after.statuses).toEqual([200, 200]);
        expect(after.remaining).toEqual(['996', '995']);
        expect(lines()).toEqual(['down', 'back']);
      } finally {
        proxy.restore();
        await t.close();
      }
    },
    30_000,
  );

  it('a Redis that accepts connections and never answers: requests pass at once, one line, the metric says 0, readiness 200', async () => {
    warn.mockClear();
    log.mockClear();
    const { t, key } = await appOn(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    try {
      const during = await burst(t, key, 20);
      expect(during.statuses).toEqual(Array(20).fill(200));
      expect(during.slowest).toBeLessThan(ANSWER_WITHIN_MS);
      expect(held.length).toBeGreaterThan(0);
      expect(await storeUp(t)).toBe('0');
      expect(await ready(t)).toBe(200);
      expect(lines()).toEqual(['down']);
    } finally {
      await t.close();
    }
  });
});
