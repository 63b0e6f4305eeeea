import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from './common/access/access.module';
import { ApiKeyCache } from './common/auth/api-key.cache';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthRepository } from './common/auth/auth.repository';
import { dataSourceOptions } from './common/database/data-source';
import { withBoundedWaits } from './common/database/pool-options';
import { ErrorFilter } from './common/errors/error.filter';
import { RequestTimeoutInterceptor, RetryLostRaceInterceptor } from './common/http/resilience.interceptors';
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

/** The application: one module per domain, a global API-key guard, one error filter, and the timeout and race-retry interceptors (issue 8). */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({ useFactory: () => withBoundedWaits(dataSourceOptions()) }),
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
    // Issue 8, outermost first: the request deadline covers both attempts of a write that lost a race.
    { provide: APP_INTERCEPTOR, useClass: RequestTimeoutInterceptor },
    { provide: APP_INTERCEPTOR, useClass: RetryLostRaceInterceptor },
  ],
})
export class AppModule {}
