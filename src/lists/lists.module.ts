import { Module } from '@nestjs/common';

/** Lists: routes and rules of this domain. */
@Module({})
export class ListsModule {}
