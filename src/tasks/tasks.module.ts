import { Module } from '@nestjs/common';

/** Tasks: routes and rules of this domain. */
@Module({})
export class TasksModule {}
