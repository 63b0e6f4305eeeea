import { Global, Injectable, Module } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from './pg-errors';

/**
 * The request path's way to PostgreSQL (issue 16): a statement goes straight
 * to the pg pool the TypeORM data source owns (the same connections, named
 * statements and timeouts) without TypeORM's query runner around each call.
 * TypeORM keeps migrations, transactions and the CLI.
 */
@Injectable()
export class Sql {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The rows of one statement, as pg parses them. Errors are pg's own (see pg-errors.ts).
   * The connection goes back to the pool after an SQL error too (pg's `pool.query` would
   * close it, and its prepared statements with it); one that broke or timed out is closed.
   */
  async rows<T>(text: string, values: unknown[]): Promise<T[]> {
    const client = await (this.dataSource.driver as unknown as { master: Pool }).master.connect();
    try {
      const { rows } = await client.query(text, values);
      client.release();
      return rows as T[];
    } catch (error) {
      // A connection that failed or timed out is closed; after a plain SQL error it is kept.
      client.release(isDatabaseUnavailable(error) ? (error as Error) : undefined);
      throw error;
    }
  }
}

/** Provides Sql to every module. */
@Global()
@Module({ providers: [Sql], exports: [Sql] })
export class SqlModule {}
