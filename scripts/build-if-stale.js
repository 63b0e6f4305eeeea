/*
 * Builds dist/ (tsc -p tsconfig.build.json, its output on stderr) when a
 * source or tsconfig is newer than the last build, or there is none. Used by
 * `npm run cli` (scripts/cli.js) and by the tests that run the built server.
 */
'use strict';
const { spawnSync } = require('child_process');
const { readdirSync, statSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** True when dist/ holds a build at least as new as every source. */
function isBuilt() {
  try {
    const at = statSync(join(root, 'dist', '.tsbuildinfo')).mtimeMs;
    statSync(join(root, 'dist', 'main.js'));
    const configs = ['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(root, f)).mtimeMs);
    return at >= Math.max(newest(join(root, 'src')), ...configs);
  } catch {
    return false;
  }
}

/** Builds when stale; returns the compiler's exit status (0 when nothing was to do). */
function buildIfStale() {
  if (isBuilt()) return 0;
  process.stderr.write('Building dist/ (sources changed since the last build)...\n');
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  return tsc.status ?? 1;
}

module.exports = { buildIfStale, isBuilt };
