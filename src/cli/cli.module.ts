import { Module } from '@nestjs/common';

import { COMMANDS } from './commands';
import { CliDatabase } from './database';

/** The CLI (D32): the commands and a lazily opened database; no HTTP app. */
@Module({ providers: [CliDatabase, ...COMMANDS] })
export class CliModule {}
