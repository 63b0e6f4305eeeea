import { types } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';

import type { AppEnv } from '../../config/env';
import { processSettings } from '../../config/settings';
import { installJobQueue } from './job-queue';
import { InitialSchema1732250000000 } from './migrations/1732250000000-initial-schema';
import { ApiKeyNotify1795431327202 } from './migrations/1795431327202-api-key-notify';
import { TaskQueries1795500000000 } from './migrations/1795500000000-task-queries';
import { ServerSecrets1795600000000 } from './migrations/1795600000000-server-secrets';
import { TaskSearchText1795700000000 } from './migrations/1795700000000-task-search-text';
import { Events1795800000000 } from './migrations/1795800000000-events';
import { IdempotencyKeys1795810000000 } from './migrations/1795810000000-idempotency-keys';
import { Webhooks1795820000000 } from './migrations/1795820000000-webhooks';
import { TaskListCoveringIndex1795830000000 } from './migrations/1795830000000-task-list-covering-index';
import { TaskIdentifierSequences1795840000000 } from './migrations/1795840000000-task-identifier-sequences';
import { ApiTsInlined1795850000000 } from './migrations/1795850000000-api-ts-inlined';
import { CustomFieldTaskEntries1795860000000 } from './migrations/1795860000000-custom-field-task-entries';
import { WebhookDispatch1795910000000 } from './migrations/1795910000000-webhook-dispatch';
import { WorkspaceAdmin1795940000000 } from './migrations/1795940000000-workspace-admin';
import { CustomFieldNames1795950000000 } from './migrations/1795950000000-custom-field-names';
import { AttachmentStorage1795960000000 } from './migrations/1795960000000-attachment-storage';
import { TaskTopLevelTitleIndex1795970000000 } from './migrations/1795970000000-task-top-level-title-index';
import { TaskAutovacuum1795970000001 } from './migrations/1795970000001-task-autovacuum';
import { WebhookJobFlags1795980000000 } from './migrations/1795980000000-webhook-job-flags';
import { TaskPriorityTitleIndex1795983000000 } from './migrations/1795983000000-task-priority-title-index';
import { WebhookLeaseOwner1795990000000 } from './migrations/1795990000000-webhook-lease-owner';
import { LinkWorkspaceKeys1796000000000 } from './migrations/1796000000000-link-workspace-keys';
import { EmbeddedJson1796010000000 } from './migrations/1796010000000-embedded-json';
import { TaskSearchTextPlpgsql1796020000000 } from './migrations/1796020000000-task-search-text-plpgsql';
import { TaskListDueDateCovering1796030000000 } from './migrations/1796030000000-task-list-due-date-covering';
import { NamedStatementClient } from './prepared';

// bigint (COUNT(*), file sizes) as JS numbers: every value we keep fits in 2^53.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

/** Every migration, in order. `synchronize` is never used: the schema comes from these. */
export const MIGRATIONS = [
  InitialSchema1732250000000,
  ApiKeyNotify1795431327202,
  TaskQueries1795500000000,
  ServerSecrets1795600000000,
  TaskSearchText1795700000000,
  Events1795800000000,
  IdempotencyKeys1795810000000,
  Webhooks1795820000000,
  TaskListCoveringIndex1795830000000,
  TaskIdentifierSequences1795840000000,
  ApiTsInlined1795850000000,
  CustomFieldTaskEntries1795860000000,
  WebhookDispatch1795910000000,
  WorkspaceAdmin1795940000000,
  CustomFieldNames1795950000000,
  AttachmentStorage1795960000000,
  TaskTopLevelTitleIndex1795970000000,
  TaskAutovacuum1795970000001,
  WebhookJobFlags1795980000000,
  TaskPriorityTitleIndex1795983000000,
  WebhookLeaseOwner1795990000000,
  LinkWorkspaceKeys1796000000000,
  EmbeddedJson1796010000000,
  TaskSearchTextPlpgsql1796020000000,
  TaskListDueDateCovering1796030000000,
];

/**
 * TypeORM options for PostgreSQL at `url`. Pool size from `env.dbPoolSize`
 * (DB_POOL_SIZE, default 10). Parameterised statements are named prepared
 * statements unless `env.preparedStatements` is false (prepared.ts).
 * `env` defaults to this process's settings (the CLI, the tests' own connections).
 */
export function dataSourceOptions(url: string | undefined, env: Pick<AppEnv, 'dbPoolSize' | 'preparedStatements'> = processSettings()): DataSourceOptions {
  if (!url) throw new Error('DATABASE_URL is not set');
  return {
    type: 'postgres',
    url,
    // No entity classes: repositories query with SQL and map rows themselves
    // (STYLE: no entity hydration), and the migrations are the one schema source.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: env.dbPoolSize,
      ...(env.preparedStatements ? { Client: NamedStatementClient } : {}),
    },
  };
}

/** Opens a DataSource on `url`, runs pending migrations, and returns it. */
export async function openDatabase(url?: string, runMigrations = true): Promise<DataSource> {
  const ds = new DataSource(dataSourceOptions(url));
  await ds.initialize();
  if (runMigrations) await migrateAll(ds);
  return ds;
}

/**
 * Runs pending migrations, then installs or upgrades the webhook job queue's
 * schema (graphile-worker's own migrations, which the events trigger needs).
 *
 * @returns the migrations applied now
 */
export async function migrateAll(ds: DataSource): Promise<Array<{ name: string }>> {
  const applied = await ds.runMigrations({ transaction: 'all' });
  await installJobQueue((ds.options as { url: string }).url);
  return applied;
}
