import { Global, Module } from '@nestjs/common';

import { IdempotencyRepository } from './idempotency.repository';

/** D35's store, for the write routes of every module. */
@Global()
@Module({ providers: [IdempotencyRepository], exports: [IdempotencyRepository] })
export class IdempotencyModule {}
