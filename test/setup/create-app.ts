import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { AppModule } from '../../src/app.module';
import { configureApp, createAdapter } from '../../src/app.setup';
import { createTestDatabase, TestDatabase } from './database';

/** One test file's world: its own database and the real app on it. */
export interface TestApp {
  app: NestFastifyApplication;
  db: TestDatabase;
  /** Sends a request through the app (no socket). */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Closes the app and drops the database. */
  close(): Promise<void>;
}

/**
 * Boots AppModule with the Fastify adapter and configureApp (the real guard,
 * filter and body rules) on a fresh database of its own.
 */
export async function createTestApp(): Promise<TestApp> {
  const db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createAdapter(), { logger: ['error'], bodyParser: false });
  await configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    db,
    inject: (options) => app.inject(options) as unknown as Promise<LightMyRequestResponse>,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

/** Headers for a request authenticated with `key` (Bearer form). */
export function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
