import { spawnSync } from 'child_process';

import { HEAP_GROWING_FLAGS, ONE_CORE_V8_FLAGS, V8_FLAGS, v8FlagsFor } from './v8-tuning';

describe('V8 settings of the server process', () => {
  it.each([V8_FLAGS, HEAP_GROWING_FLAGS, ONE_CORE_V8_FLAGS])(
    '%s is a flag this Node.js knows (V8 prints "unrecognized flag" for one it does not, and ignores it)',
    (flag) => {
      const child = spawnSync(process.execPath, ['-e', `require('v8').setFlagsFromString(${JSON.stringify(flag)})`], { encoding: 'utf8' });
      expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    },
  );

  it('would catch one it does not know', () => {
    const child = spawnSync(process.execPath, ['-e', `require('v8').setFlagsFromString('--no-such-v8-flag')`], { encoding: 'utf8' });
    expect(child.stderr).toMatch(/unrecognized flag/);
  });

  it('scavenges on the main thread only when the process has one core', () => {
    expect(v8FlagsFor(1)).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=100', '--no-parallel-scavenge']);
    expect(v8FlagsFor(2)).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
    expect(v8FlagsFor(64)).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
  });
});
