import { Module } from '@nestjs/common';

/** Statuses: routes and rules of this domain. */
@Module({})
export class StatusesModule {}
