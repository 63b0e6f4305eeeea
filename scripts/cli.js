#!/usr/bin/env node
/*
 * `npm run cli -- <command>` (D32): runs the built CLI (dist/cli.js), building
 * first only when a source changed since the last build, with the compiler's
 * output on stderr so stdout carries only the result. `node dist/cli.js
 * <command>` skips even the check.
 */
'use strict';
const { join } = require('path');
const { buildIfStale } = require('./build-if-stale');

const status = buildIfStale();
if (status !== 0) process.exit(status);
require(join(__dirname, '..', 'dist', 'cli.js'));
