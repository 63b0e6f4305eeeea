import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AccessModule } from './common/access/access.module';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthRepository } from './common/auth/auth.repository';
import { dataSourceOptions } from './common/database/data-source';
import { ErrorFilter } from './common/errors/error.filter';
import { loggerModuleParams, rootLogger } from './common/logging/logger';
import { RateLimitGuard } from './common/throttle/throttle.guard';
import { RateLimitModule } from './common/throttle/throttle.module';
import { loadEnv } from './config/env';
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
 * request logs, a global rate-limit guard then the API-key guard, and one error filter.
 */
@Module({
  imports: [
    // Validated when each app is built (the server entry validates first, to fail with one line).
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ ...loadEnv() })] }),
    LoggerModule.forRootAsync({ useFactory: () => loggerModuleParams(rootLogger(loadEnv())) }),
    RateLimitModule,
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
    // Guards run in this order: the rate limit counts requests refused by authentication too.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
  ],
})
export class AppModule {}
