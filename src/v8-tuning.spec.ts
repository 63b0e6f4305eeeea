import { spawnSync } from 'child_process';
import { V8_FLAGS } from './v8-tuning';

describe('V8 settings of the server process', () => {
  it('are flags this Node.js knows (V8 prints "unrecognized flag" for one it does not, and ignores it)', () => {
    const child = spawnSync(process.execPath, ['-e', `require('v8').setFlagsFromString(${JSON.stringify(V8_FLAGS)})`], { encoding: 'utf8' });
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('would catch one it does not know', () => {
    const child = spawnSync(process.execPath, ['-e', `require('v8').setFlagsFromString('--no-such-v8-flag')`], { encoding: 'utf8' });
    expect(child.stderr).toMatch(/unrecognized flag/);
  });
});
