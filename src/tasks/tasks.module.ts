import { Module } from '@nestjs/common';

import { CursorSecretLoader } from './cursor-secret';
import { TasksController } from './tasks.controller';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

/** Tasks: create, get, update, delete, list (spec: Tasks), with custom-field values on tasks (D13, D18, D19). */
@Module({ controllers: [TasksController], providers: [TasksService, TasksRepository, CursorSecretLoader], exports: [TasksRepository] })
export class TasksModule {}
