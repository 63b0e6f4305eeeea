import 'reflect-metadata';

import { LoggerService } from '@nestjs/common';
import { CommandFactory } from 'nest-commander';

import { CliModule } from './cli/cli.module';
import { debugEnabled, logToStderr } from './cli/database';
import { processSettingsOrExit } from './config/settings';

/**
 * Command-line entry (D32): `npm run cli -- <command>`, or `node dist/cli.js
 * <command>`. Commands: migrate, seed, demo, users create, workspaces create,
 * members add, keys create|revoke|list (`--help` on each). Results go to
 * stdout, everything else to stderr; a failure exits 1.
 */

/** Nest's own messages, to stderr only. */
const stderrLogger: LoggerService = {
  log: (message) => (debugEnabled() ? logToStderr(String(message)) : undefined),
  warn: (message) => logToStderr(`warn: ${String(message)}`),
  error: (message, ...rest) => logToStderr(`error: ${String(message)}${rest.length && debugEnabled() ? ' ' + rest.join(' ') : ''}`),
  debug: (message) => (debugEnabled() ? logToStderr(String(message)) : undefined),
  verbose: () => undefined,
};

async function main(): Promise<void> {
  // A bad variable stops here with one line on stderr.
  processSettingsOrExit();
  await CommandFactory.run(CliModule, {
    logger: stderrLogger,
    cliName: 'work-tracking-api',
  });
}

main().catch((error: unknown) => {
  logToStderr(`Error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
