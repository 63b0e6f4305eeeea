import { DEFAULT_TIMEOUTS, readTimeouts } from './timeouts';

describe('readTimeouts (issue 8)', () => {
  it('gives the defaults when nothing is set', () => {
    expect(readTimeouts({})).toEqual(DEFAULT_TIMEOUTS);
    expect(readTimeouts({ REQUEST_TIMEOUT_MS: '  ' })).toEqual(DEFAULT_TIMEOUTS);
  });

  it('reads each variable', () => {
    expect(
      readTimeouts({
        DB_CONNECT_TIMEOUT_MS: '1',
        DB_STATEMENT_TIMEOUT_MS: '2',
        REQUEST_TIMEOUT_MS: '3',
        HTTP_REQUEST_TIMEOUT_MS: '4',
        HTTP_IDLE_TIMEOUT_MS: '5',
        SHUTDOWN_TIMEOUT_MS: ' 6 ',
      }),
    ).toEqual({ dbConnect: 1, dbStatement: 2, request: 3, httpRequest: 4, httpIdle: 5, shutdown: 6 });
  });

  it.each([['0'], ['-5'], ['1.5'], ['10s'], ['1e3']])('refuses %p, naming the variable', (value) => {
    expect(() => readTimeouts({ REQUEST_TIMEOUT_MS: value })).toThrow('REQUEST_TIMEOUT_MS must be a positive number of milliseconds');
  });
});
