import fc from 'fast-check';
import pino from 'pino';

import { isoTime } from './logger';

describe('isoTime (issue 16: the request line timestamp, formatted once per second)', () => {
  afterEach(() => jest.restoreAllMocks());

  /** What isoTime gives at `ms` since the epoch, and what pino's own isoTime gives. */
  const both = (ms: number): [string, string] => {
    jest.spyOn(Date, 'now').mockReturnValue(ms);
    return [isoTime(), pino.stdTimeFunctions.isoTime()];
  };

  it.each([
    [Date.UTC(2026, 10, 26, 3, 26, 4, 725), ',"time":"2026-11-26T03:26:04.725Z"'],
    [Date.UTC(2026, 10, 26, 3, 26, 4, 5), ',"time":"2026-11-26T03:26:04.005Z"'],
    [Date.UTC(2026, 10, 26, 3, 26, 4, 50), ',"time":"2026-11-26T03:26:04.050Z"'],
    [Date.UTC(2026, 10, 26, 3, 26, 5, 0), ',"time":"2026-11-26T03:26:05.000Z"'],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), ',"time":"2026-12-31T23:59:59.999Z"'],
  ])('at %p gives %s, as pino does', (ms, expected) => {
    expect(both(ms)).toEqual([expected, expected]);
  });

  it('matches pino for any time, in any order (the cached second is replaced when the second changes)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (ms) => {
        const [ours, pinos] = both(ms);
        expect(ours).toBe(pinos);
      }),
      { numRuns: 2000 },
    );
  });
});
