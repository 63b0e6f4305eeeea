import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ApiKeysModule } from './api-keys/api-keys.module';
import { AttachmentsModule } from './attachments/attachments.module';
import { CommentsModule } from './comments/comments.module';
import { AccessModule } from './common/access/access.module';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthModule } from './common/auth/auth.module';
import { ScheduledTasksModule } from './common/background/scheduled-tasks';
import { dataSourceOptions } from './common/database/data-source';
import { withBoundedWaits } from './common/database/pool-options';
import { SqlModule } from './common/database/sql';
import { ErrorFilter } from './common/errors/error.filter';
import { WriteRequests } from './common/http/write-request';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { RateLimitGuard } from './common/throttle/throttle.guard';
import { RateLimitModule } from './common/throttle/throttle.module';
import type { AppEnv } from './config/env';
import { SETTINGS, SettingsModule } from './config/settings';
import { CustomFieldsModule } from './custom-fields/custom-fields.module';
import { EventsModule } from './events/events.module';
import { FoldersModule } from './folders/folders.module';
import { HealthModule } from './health/health.module';
import { LabelsModule } from './labels/labels.module';
import { ListsModule } from './lists/lists.module';
import { MembersModule } from './members/members.module';
import { StatusesModule } from './statuses/statuses.module';
import { TasksModule } from './tasks/tasks.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/**
 * The application (`AppModule.forRoot(settings)`): one module per domain, its settings, the
 * global API-key guard and one error filter. The rate limit, request logs,
 * metrics and the request deadline run in Fastify hooks (http.setup.ts);
 * write routes run on a connection of their own (Idempotency-Key, the deadline's cut) and retry a lost race (the Authenticated decorator).
 */
@Module({
  imports: [
    RateLimitModule,
    SqlModule,
    ScheduledTasksModule,
    AuthModule,
    IdempotencyModule,
    AccessModule,
    HealthModule,
    UsersModule,
    WorkspacesModule,
    MembersModule,
    ApiKeysModule,
    LabelsModule,
    StatusesModule,
    FoldersModule,
    ListsModule,
    TasksModule,
    CommentsModule,
    CustomFieldsModule,
    EventsModule,
    WebhooksModule,
    AttachmentsModule,
  ],
  providers: [
    // Run by the HTTP layer's request hook, before the body is read (http.setup.ts).
    RateLimitGuard,
    WriteRequests,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
  ],
})
export class AppModule {
  /** The app with `settings` (validated by loadEnv); its database is `settings.databaseUrl`. */
  static forRoot(settings: AppEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SettingsModule.forRoot(settings),
        TypeOrmModule.forRootAsync({
          inject: [SETTINGS],
          useFactory: (s: AppEnv) => withBoundedWaits(dataSourceOptions(s.databaseUrl, s), s.timeouts),
        }),
      ],
    };
  }
}
