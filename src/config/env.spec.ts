import { DEFAULT_TIMEOUTS } from '../common/timeouts';
import { loadEnv } from './env';

describe('loadEnv timeouts (issue 8)', () => {
  it('gives the defaults when nothing is set', () => {
    expect(loadEnv({}).timeouts).toEqual(DEFAULT_TIMEOUTS);
  });

  it('reads each variable', () => {
    expect(
      loadEnv({
        DB_CONNECT_TIMEOUT_MS: '1',
        DB_STATEMENT_TIMEOUT_MS: '2',
        REQUEST_TIMEOUT_MS: '3',
        HTTP_REQUEST_TIMEOUT_MS: '4',
        HTTP_IDLE_TIMEOUT_MS: '5',
        SHUTDOWN_TIMEOUT_MS: ' 6 ',
      }).timeouts,
    ).toEqual({ dbConnect: 1, dbStatement: 2, request: 3, httpRequest: 4, httpIdle: 5, shutdown: 6 });
  });

  // One parser: the values the start-up check lets through are the values the server runs with (1e3 used to pass
  // the check and then stop the server from a second parser).
  it.each([['0'], ['-5'], ['1.5'], ['10s'], ['1e3'], ['  ']])('refuses %p, naming the variable', (value) => {
    expect(() => loadEnv({ REQUEST_TIMEOUT_MS: value })).toThrow(
      `Invalid configuration: REQUEST_TIMEOUT_MS=${JSON.stringify(value)}: expected a positive whole number of milliseconds`,
    );
  });
});

describe('loadEnv DB_PREPARED_STATEMENTS and WEB_CONCURRENCY (issue 9)', () => {
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
