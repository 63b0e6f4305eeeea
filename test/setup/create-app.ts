import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { createAdapter } from '../../src/common/http/adapter';
import { AppEnv, loadEnv } from '../../src/config/env';
import { createTestDatabase, TestDatabase } from './database';
import { responseChecker, validationEnabled } from './openapi-validator';

/** One test file's world: its own database and the real app on it. */
export interface TestApp {
  app: NestFastifyApplication;
  db: TestDatabase;
  /** Sends a request through the app (no socket). */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Closes the app and drops the database. */
  close(): Promise<void>;
}

/** Settings of a test app: the test environment with `env` (variable name → value, as an operator would set them) over it. */
export function testSettings(env: Record<string, string> = {}): AppEnv {
  return loadEnv({ ...process.env, ...env });
}

/** Options of createTestApp. */
export interface TestAppOptions {
  /** false: answers are not checked against the OpenAPI document. */
  validateResponses?: boolean;
  /** Maps the database URL the app uses (an outage test's TCP proxy); `db.ds` stays direct. */
  connectVia?: (url: string) => string;
  /** Run on this database (shared, not dropped here: a second app on it, as a second server process would be). */
  database?: TestDatabase;
  /** Configuration variables of this app (e.g. `{ REQUEST_TIMEOUT_MS: '300' }`), validated as at start-up. */
  env?: Record<string, string>;
}

/**
 * Boots AppModule with the Fastify adapter and configureApp (the real guard,
 * filter and body rules) on a fresh database of its own. `inject` checks
 * every answer against the served OpenAPI document (test/setup/openapi-validator.ts)
 * unless `validateResponses` is false.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.database ?? (await createTestDatabase());
  const settings = testSettings({ ...options.env, DATABASE_URL: options.connectVia ? options.connectVia(db.url) : db.url });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createAdapter(settings), { logger: ['error'], bodyParser: false });
  await configureApp(app, settings);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const check = await responseChecker(app, validationEnabled(options.validateResponses));
  return {
    app,
    db,
    inject: async (request) => check(request, (await app.inject(request)) as unknown as LightMyRequestResponse),
    async close() {
      await app.close();
      if (!options.database) await db.drop();
    },
  };
}

/** Headers for a request authenticated with `key` (Bearer form). */
export function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/**
 * The usual preamble of a spec file: before its tests, the app on a fresh
 * database with `load` run on it (a fixture loader: it answers the ids by
 * ref); after them, both gone. Call it at the top of the file or of a describe
 * block. `t` forwards to the app once it is up and `ids` is filled in place,
 * so both may be destructured right away.
 */
export function useTestApp(
  load: (ds: TestDatabase['ds']) => Promise<Record<string, number>> = async () => ({}),
  options?: TestAppOptions,
): { t: TestApp; ids: Record<string, number> } {
  let app: TestApp | undefined;
  const ids: Record<string, number> = {};
  const up = (): TestApp => {
    if (!app) throw new Error('the test app is used before its beforeAll ran');
    return app;
  };
  const t: TestApp = {
    get app() {
      return up().app;
    },
    get db() {
      return up().db;
    },
    inject: (request) => up().inject(request),
    close: () => up().close(),
  };
  beforeAll(async () => {
    app = await createTestApp(options);
    Object.assign(ids, await load(app.db.ds));
  });
  afterAll(async () => {
    await app?.close();
  });
  return { t, ids };
}
