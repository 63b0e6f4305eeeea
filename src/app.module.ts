import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AccessModule } from './common/access/access.module';
import { ApiKeyCache } from './common/auth/api-key.cache';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthRepository } from './common/auth/auth.repository';
import { dataSourceOptions } from './common/database/data-source';
import { withBoundedWaits } from './common/database/pool-options';
import { ErrorFilter } from './common/errors/error.filter';
import { loggerModuleParams, rootLogger } from './common/logging/logger';
import { RateLimitGuard } from './common/throttle/throttle.guard';
import { RateLimitModule } from './common/throttle/throttle.module';
import { loadEnv } from './config/env';
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

/**
 * The application: one module per domain, the validated configuration,
 * request logs, a global rate-limit guard then the API-key guard, one error
 * filter, and the timeout and race-retry interceptors (issue 8).
 */
@Module({
  imports: [
    // Validated when each app is built (the server entry validates first, to fail with one line).
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ ...loadEnv() })] }),
    LoggerModule.forRootAsync({ useFactory: () => loggerModuleParams(rootLogger(loadEnv())) }),
    RateLimitModule,
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
    // Guards run in this order: the rate limit counts requests refused by authentication too.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
    // Issue 8, outermost first: the request deadline covers both attempts of a write that lost a race.
    { provide: APP_INTERCEPTOR, useClass: RequestTimeoutInterceptor },
    { provide: APP_INTERCEPTOR, useClass: RetryLostRaceInterceptor },
  ],
})
export class AppModule {}
