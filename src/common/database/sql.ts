import { Global, Injectable, Module } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

import { isDatabaseUnavailable } from './pg-errors';
import type { Db } from './request-db';

/**
 * The request path's way to PostgreSQL: a statement goes straight
 * to the pg pool the TypeORM data source owns (the same connections, named
 * statements and timeouts) without TypeORM's query runner around each call.
 * TypeORM keeps migrations, transactions and the CLI.
 */
@Injectable()
export class Sql implements Db {
  constructor(private readonly dataSource: DataSource) {}

  /** The rows of one statement, as pg parses them. Errors are pg's own (see pg-errors.ts). */
  async rows<T>(text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    return (await pool.query(text, values)).rows as T[];
  }

  /**
   * Runs `fn` on one pooled connection of its own (statements that must share
   * a session: a transaction), and gives the connection back afterwards. A
   * connection that fails meanwhile (terminated, reset) is heard here, so it
   * fails `fn`'s statement and never the process, and is closed rather than
   * given back, as is one whose statement failed for want of the database.
   */
  async withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await (this.dataSource.driver as unknown as { master: Pool }).master.connect();
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost ??= error;
    };
    client.on('error', onError);
    try {
      return await fn(client);
    } catch (error) {
      if (isDatabaseUnavailable(error)) lost ??= error as Error;
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(lost);
    }
  }

  /** TypeORM's manager on the pool (each statement on any free connection). */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}

/** Provides Sql to every module. */
@Global()
@Module({ providers: [Sql], exports: [Sql] })
export class SqlModule {}
