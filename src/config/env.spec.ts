import { loadEnv, MAX_MILLISECONDS, VARIABLES } from './env';
import { DEFAULT_TIMEOUTS } from './timeouts';

describe('loadEnv timeouts', () => {
  it('gives the defaults when nothing is set', () => {
    expect(loadEnv({}).timeouts).toEqual(DEFAULT_TIMEOUTS);
  });

  it('reads each variable', () => {
    expect(
      loadEnv({
        DB_CONNECT_TIMEOUT_MS: '1',
        DB_STATEMENT_TIMEOUT_MS: '2',
        DB_POOL_IDLE_TIMEOUT_MS: '7',
        REQUEST_TIMEOUT_MS: '3',
        HTTP_REQUEST_TIMEOUT_MS: '4',
        HTTP_IDLE_TIMEOUT_MS: '5',
        SHUTDOWN_TIMEOUT_MS: ' 6 ',
        SHUTDOWN_DELAY_MS: '8',
      }).timeouts,
    ).toEqual({ dbConnect: 1, dbStatement: 2, dbIdle: 7, request: 3, httpRequest: 4, httpIdle: 5, shutdown: 6, shutdownDelay: 8 });
  });

  // One parser: the values the start-up check lets through are the values the server runs with (with a second
  // parser, 1e3 would pass the check and then stop the server).
  it.each([['0'], ['-5'], ['1.5'], ['10s'], ['1e3'], ['  '], ['2147483648'], ['99999999999999999999']])('refuses %p, naming the variable', (value) => {
    expect(() => loadEnv({ REQUEST_TIMEOUT_MS: value })).toThrow(
      `Invalid configuration: REQUEST_TIMEOUT_MS=${JSON.stringify(value)}: expected a whole number of milliseconds from 1 to 2147483647`,
    );
  });

  // A timer longer than 2^31-1 ms fires at once in Node.js, so such a value would pass a digits-only check and then
  // make every request 503. Every *_MS variable has the bound.
  // (WEBHOOK_RETRY_DELAYS_MS is a list of delays of at most a day: test/e2e/ops.e2e-spec.ts.)
  const durations = Object.keys(VARIABLES).filter((name) => name.endsWith('_MS') && name !== 'WEBHOOK_RETRY_DELAYS_MS');
  it.each(durations)('%s accepts 2147483647 and refuses 2147483648', (name) => {
    expect(MAX_MILLISECONDS).toBe(2 ** 31 - 1);
    const env = loadEnv({ [name]: '2147483647' });
    expect([...Object.values(env.timeouts), env.webhooks.timeoutMs]).toContain(2147483647);
    const { accepts } = VARIABLES[name as keyof typeof VARIABLES];
    expect(() => loadEnv({ [name]: '2147483648' })).toThrow(`Invalid configuration: ${name}="2147483648": expected ${accepts}`);
  });

  // Issue 16: 0 keeps unused pooled connections (the default: no idle timer per statement); only there is 0 a value.
  it('WEBHOOKS_PER_WORKSPACE_MAX: 20 by default, a whole number from 1, checked at startup (D38)', () => {
    expect(loadEnv({}).webhooks.perWorkspaceMax).toBe(20);
    expect(loadEnv({ WEBHOOKS_PER_WORKSPACE_MAX: '3' }).webhooks.perWorkspaceMax).toBe(3);
    for (const value of ['0', '-1', '2.5', 'many', '1000001']) {
      expect(() => loadEnv({ WEBHOOKS_PER_WORKSPACE_MAX: value })).toThrow(
        `Invalid configuration: WEBHOOKS_PER_WORKSPACE_MAX=${JSON.stringify(value)}: expected ${VARIABLES.WEBHOOKS_PER_WORKSPACE_MAX.accepts}`,
      );
    }
  });

  it('DB_POOL_IDLE_TIMEOUT_MS accepts 0 (keep) and refuses what is not a whole number of milliseconds', () => {
    expect(loadEnv({ DB_POOL_IDLE_TIMEOUT_MS: '0' }).timeouts.dbIdle).toBe(0);
    expect(VARIABLES.DB_POOL_IDLE_TIMEOUT_MS.accepts).toBe('0 (keep unused connections) or a whole number of milliseconds up to 2147483647');
    for (const value of ['-1', '1.5', '5m', '']) {
      expect(() => loadEnv({ DB_POOL_IDLE_TIMEOUT_MS: value })).toThrow(
        `Invalid configuration: DB_POOL_IDLE_TIMEOUT_MS=${JSON.stringify(value)}: expected ${VARIABLES.DB_POOL_IDLE_TIMEOUT_MS.accepts}`,
      );
    }
  });
});

// Issue 32: readiness answers 503 for SHUTDOWN_DELAY_MS after SIGTERM; 0 (the default) closes the listener at once.
describe('SHUTDOWN_DELAY_MS', () => {
  it('accepts 0 and whole milliseconds, refuses the rest', () => {
    expect(loadEnv({ SHUTDOWN_DELAY_MS: '0' }).timeouts.shutdownDelay).toBe(0);
    expect(loadEnv({ SHUTDOWN_DELAY_MS: '5000' }).timeouts.shutdownDelay).toBe(5000);
    for (const value of ['-1', '1.5', '5s', '']) {
      expect(() => loadEnv({ SHUTDOWN_DELAY_MS: value })).toThrow(
        `Invalid configuration: SHUTDOWN_DELAY_MS=${JSON.stringify(value)}: expected 0 (stop accepting at once) or a whole number of milliseconds up to 2147483647`,
      );
    }
  });
});

// Issue 32: a configuration error names the variable and the bad value, but never a password or a secret.
describe('configuration errors show no secret', () => {
  it.each([
    ['DATABASE_URL', 'postgres://app:s3cr3t@db:5432/x y', 'postgres://app:***@db:5432/x y'],
    ['DATABASE_URL', 'mysql://app:s3cr3t@db/app', 'mysql://app:***@db/app'],
    ['DATABASE_URL', 'app:s3cr3t@db:5432/app', 'app:***@db:5432/app'],
    ['DATABASE_URL', 'postgres://app:p@ss:w@rd@db/x y', 'postgres://app:***@db/x y'],
    ['REDIS_URL', 'http://:s3cr3t@cache:6379', 'http://:***@cache:6379'],
  ])('%s=%s is shown as %s', (name, value, shown) => {
    let message = '';
    try {
      loadEnv({ [name]: value });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`Invalid configuration: ${name}=${JSON.stringify(shown)}: expected `);
    expect(message).not.toMatch(/s3cr3t|p@ss|rd@/);
  });
});

describe('loadEnv ports: digits only', () => {
  it('reads PORT and EMBEDDED_PG_PORT', () => {
    expect(loadEnv({ PORT: ' 0 ', EMBEDDED_PG_PORT: '65535' })).toMatchObject({ port: 0, embeddedPgPort: 65535 });
    expect(loadEnv({ PORT: '8080', EMBEDDED_PG_PORT: '' })).toMatchObject({ port: 8080, embeddedPgPort: undefined });
  });

  it.each([['1e3'], ['80.0'], ['0x50'], ['+80'], ['-1'], ['65536'], ['abc']])('PORT=%p is refused', (value) => {
    expect(() => loadEnv({ PORT: value })).toThrow(`Invalid configuration: PORT=${JSON.stringify(value)}: expected a port number from 0 to 65535`);
  });

  it.each([['1e3'], ['0'], ['65536'], [' 5433.5']])('EMBEDDED_PG_PORT=%p is refused', (value) => {
    expect(() => loadEnv({ EMBEDDED_PG_PORT: value })).toThrow(
      `Invalid configuration: EMBEDDED_PG_PORT=${JSON.stringify(value)}: expected a port number from 1 to 65535`,
    );
  });
});

describe('loadEnv DB_PREPARED_STATEMENTS and WEB_CONCURRENCY', () => {
  it('defaults to named statements and one process', () => {
    expect(loadEnv({})).toMatchObject({ preparedStatements: true, webConcurrency: 1 });
  });

  it.each([['false'], ['0'], ['off'], ['no'], [' FALSE ']])('%p turns named statements off', (value) => {
    expect(loadEnv({ DB_PREPARED_STATEMENTS: value }).preparedStatements).toBe(false);
  });

  it('reads WEB_CONCURRENCY', () => {
    expect(loadEnv({ WEB_CONCURRENCY: '3' }).webConcurrency).toBe(3);
  });
});

describe('loadEnv TRUST_PROXY', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    ['0', false],
    ['off', false],
    ['10.0.0.1', ['10.0.0.1']],
    [' 10.0.0.0/8 , ::1, fd00::/8,loopback ', ['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']],
  ])('%p gives %p', (value, expected) => {
    expect(loadEnv({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('a hop count trusts that many proxies from the right, as a function (Fastify reads a bare number as trusting none)', () => {
    const one = loadEnv({ TRUST_PROXY: '1' }).trustProxy as (address: string, hop: number) => boolean;
    expect([one('172.18.0.5', 0), one('6.6.6.6', 1)]).toEqual([true, false]);
    const two = loadEnv({ TRUST_PROXY: '2' }).trustProxy as (address: string, hop: number) => boolean;
    expect([two('a', 0), two('b', 1), two('c', 2)]).toEqual([true, true, false]);
  });

  it.each([['maybe'], ['1.5'], ['-1'], ['256'], ['10.0.0.1,'], ['10.0.0.0/33'], ['::1/129'], ['10.0.0.1/8/2'], ['example.com'], ['1e3']])(
    '%p is refused',
    (value) => {
      expect(() => loadEnv({ TRUST_PROXY: value })).toThrow(
        `Invalid configuration: TRUST_PROXY=${JSON.stringify(value)}: expected true, false, a number of proxies (0 to 255) or a comma-separated list of proxy addresses or CIDR ranges`,
      );
    },
  );
});
