import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from './common/access/access.module';
import { ApiKeyCache } from './common/auth/api-key.cache';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthRepository } from './common/auth/auth.repository';
import { dataSourceOptions } from './common/database/data-source';
import { ErrorFilter } from './common/errors/error.filter';
import { CommentsModule } from './comments/comments.module';
import { CustomFieldsModule } from './custom-fields/custom-fields.module';
import { FoldersModule } from './folders/folders.module';
import { HealthModule } from './health/health.module';
import { LabelsModule } from './labels/labels.module';
import { ListsModule } from './lists/lists.module';
import { StatusesModule } from './statuses/statuses.module';
import { TasksModule } from './tasks/tasks.module';
import { UsersModule } from './users/users.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/** The application: one module per domain, a global API-key guard and one error filter. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({ useFactory: () => dataSourceOptions() }),
    AccessModule,
    HealthModule,
    UsersModule,
    WorkspacesModule,
    LabelsModule,
    StatusesModule,
    FoldersModule,
    ListsModule,
    TasksModule,
    CommentsModule,
    CustomFieldsModule,
  ],
  providers: [
    AuthRepository,
    ApiKeyCache,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
  ],
})
export class AppModule {}
