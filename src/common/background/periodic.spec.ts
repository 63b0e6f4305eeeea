import { Logger } from '@nestjs/common';

import { startPeriodic } from './periodic';

describe('startPeriodic', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs after the first delay, then every interval; a failure is logged and the job runs again; stop ends it', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) } as unknown as Logger;
    let runs = 0;
    const stop = startPeriodic(
      {
        what: 'Pruning things',
        firstDelayMs: 100,
        everyMs: 1000,
        run: async () => {
          runs++;
          if (runs === 1) throw new Error('database gone');
        },
      },
      logger,
    );
    await jest.advanceTimersByTimeAsync(99);
    expect(runs).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    expect(warnings).toEqual(['Pruning things failed: database gone']);
    await jest.advanceTimersByTimeAsync(2000);
    expect(runs).toBe(3);
    stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(3);
    expect(warnings).toHaveLength(1);
  });
});
