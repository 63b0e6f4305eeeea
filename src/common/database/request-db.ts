import { Connection, type PoolClient } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * Where a request's statements run: the shared pool (Sql, for reads)
 * or the one connection of a write request (RequestDb). `rows` sends one
 * statement and returns pg's rows; `manager` is TypeORM's EntityManager on the
 * same connection (its `transaction()` nests as a savepoint inside an open one).
 */
export interface Db {
  rows<T>(text: string, values: unknown[]): Promise<T[]>;
  readonly manager: EntityManager;
}

/** How long a cut waits for the statement it cancelled to stop (a database that does not answer at all gets its 503 anyway). */
const CUT_WAIT_MS = 1_000;

/** The error of a statement refused because its request was cut by the deadline: SQLSTATE 57014 (query_canceled), so it answers 503. */
class RequestCutError extends Error {
  readonly code = '57014';
  constructor() {
    super('canceling statement: the request ran past REQUEST_TIMEOUT_MS');
  }
}

/** A turn on the request's share of the pool (KeyShare, per API key): resolves when the turn is given, with the function that gives it back. */
export type Turn = () => Promise<() => void>;

/** A pooled connection taken in a turn, and what gives that turn back (after the connection). */
interface Held {
  client: PoolClient;
  leave: () => void;
}

/** The turn of a request that shares nothing. */
const NO_TURN: Turn = () => Promise.resolve(() => undefined);

/** The first word of a statement, upper case (`SELECT`, `WITH`, `COMMIT`, ...), read without scanning the whole text. */
function verbOf(text: string): string {
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 32) start++;
  let end = start;
  while (end < text.length && end - start < 10 && text.charCodeAt(end) > 32) end++;
  return text.slice(start, end).toUpperCase();
}

/**
 * The connection of one write request, taken from the pool at its
 * first statement and given back by `release()`: so the request's statements
 * can share one transaction (Idempotency-Key, D35: the stored answer commits
 * with the write) and so the REQUEST_TIMEOUT_MS deadline can stop them (`cut`):
 * a 503 then means that nothing of the request committed.
 *
 * Without `transactional`, each statement commits by itself as on the pool
 * (same round trips); TypeORM transactions of the services (`manager.transaction`)
 * run on this connection. With it, BEGIN is sent before the first statement and
 * `commit()` / `rollback()` end it.
 */
export class RequestDb implements Db {
  private runner?: QueryRunner;
  private client?: PoolClient;
  /** Gives back the turn `client` holds. */
  private leaveTurn?: () => void;
  /** The connection of the autocommit statement on the wire (see rows). */
  private statementClient?: PoolClient;
  private connecting?: Promise<PoolClient>;
  private abandon?: (error: Error) => void;
  /** The statement on the wire, if any. */
  private running?: Promise<unknown>;
  private cutting = false;
  private released = false;
  /** The connection is in an unknown state (a rollback failed, or the request was cut): it is closed, not reused. */
  private broken = false;
  /** A BEGIN is open on the connection (ours or a service's). */
  private inTransaction = false;
  /** Something the request wrote has committed: a 503 would no longer be true. */
  private committed = false;
  /** Transactional mode ended (endTransaction): later statements commit each by itself. */
  private autocommit = false;

  private readonly onError = () => {
    this.broken = true;
  };

  /**
   * `turn`: the request's share of the pool. Every connection the request takes (one per autocommit
   * statement, or its own for a transaction) waits for a turn first and gives it back with the connection,
   * so that its key holds at most its share of connections, while the request's work outside the
   * database (body checks, the answer) waits for nothing.
   */
  constructor(
    private readonly dataSource: DataSource,
    readonly transactional: boolean,
    private readonly turn: Turn = NO_TURN,
  ) {}

  /**
   * Runs `text` for this request; refused (RequestCutError) once the request was cut. In a
   * transaction (keyed, or a service's) on the request's connection; otherwise each statement
   * takes a pooled connection for itself only, as the pool's own query does, so an autocommit
   * request holds no connection between its statements (the deadline still cancels the one on the wire).
   */
  async rows<T>(text: string, values: unknown[]): Promise<T[]> {
    if ((this.transactional && !this.autocommit) || this.runner || this.client) {
      const client = await this.connect();
      return ((await client.query(text, values)) as unknown as { rows: T[] }).rows;
    }
    if (this.cutting || this.released) throw new RequestCutError();
    const { client, leave } = await this.acquire();
    this.statementClient = client;
    // A connection that fails while checked out emits `error`: heard here (no crash), and it is not reused.
    let failed = false;
    const onError = () => {
      failed = true;
    };
    client.on('error', onError);
    const sent = client.query(text, values) as unknown as Promise<{ rows: T[] }>;
    this.running = sent;
    try {
      const { rows } = await sent;
      if (verbOf(text) !== 'SELECT') this.committed = true;
      return rows;
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      this.running = undefined;
      this.statementClient = undefined;
      client.removeListener('error', onError);
      // A failed statement, or one cut by the deadline, leaves its connection in an unknown state: closed, not reused.
      client.release(failed || this.cutting ? new RequestCutError() : undefined);
      leave();
    }
  }

  /**
   * The request's turn, then a pooled connection; both given back (RequestCutError) when the request
   * was cut or released meanwhile. The caller gives back the turn (`leave`) after the connection.
   */
  private async acquire(): Promise<Held> {
    const leave = await this.turn();
    let client: PoolClient;
    try {
      if (this.cutting || this.released) throw new RequestCutError();
      client = await this.pool().connect();
    } catch (error) {
      leave();
      throw error;
    }
    if (this.cutting || this.released) {
      client.release();
      leave();
      throw new RequestCutError();
    }
    return { client, leave };
  }

  /**
   * Runs `work`, statements of this request on the shared pool that must commit apart from its
   * transaction (D35's claim of its key), within a turn of the request's share; at once while the
   * request holds its own connection (and that turn), not once it gave them back.
   */
  async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.client && !this.released) return work();
    const leave = await this.turn();
    try {
      return await work();
    } finally {
      leave();
    }
  }

  /** The pool of the data source. */
  private pool(): { connect(): Promise<PoolClient> } {
    return (this.dataSource.driver as unknown as { master: { connect(): Promise<PoolClient> } }).master;
  }

  get manager(): EntityManager {
    return this.queryRunner().manager;
  }

  /** Commits the request's transaction (transactional mode). */
  async commit(): Promise<void> {
    if (this.runner?.isTransactionActive) await this.runner.commitTransaction();
  }

  /** Rolls back the request's open transaction, if any; never throws (the connection is then dropped, which rolls back too). */
  async rollback(): Promise<void> {
    if (!this.runner?.isTransactionActive) return;
    try {
      await this.runner.rollbackTransaction();
    } catch {
      this.broken = true;
    }
  }

  /**
   * Ends transactional mode: what is still open is rolled back, and later
   * statements commit each by itself, on the request's connection while it
   * holds one (a keyed request storing its error answer, or giving up its key,
   * needs no second connection). Never throws.
   */
  async endTransaction(): Promise<void> {
    await this.rollback();
    this.autocommit = true;
  }

  /** Whether a statement may still be sent for this request: not cut, not released, its connection not in doubt. */
  get usable(): boolean {
    return !this.broken && !this.cutting && !this.released;
  }

  /** The race retry in transactional mode: the failed transaction is rolled back and a new one begun. */
  async restart(): Promise<void> {
    if (!this.transactional || !this.client) return;
    await this.rollback();
    if (!this.broken && !this.released) await this.runner!.startTransaction();
  }

  /** Gives the connection back to the pool (rolling back what is still open). Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    await this.rollback();
    this.released = true;
    this.abandon?.(new RequestCutError());
    const client = this.client;
    if (!client) return;
    delete (client as { query?: unknown }).query;
    client.removeListener('error', this.onError);
    const error = this.broken || this.cutting ? new RequestCutError() : undefined;
    try {
      if (this.runner) await (this.runner as unknown as { releasePostgresConnection(error?: Error): Promise<void> }).releasePostgresConnection(error);
      else client.release(error);
    } finally {
      this.leaveTurn?.();
    }
  }

  /**
   * The deadline (http.setup.ts): stops the request's database work so that a 503
   * is true. Later statements are refused; the one on the wire is cancelled and
   * awaited (at most CUT_WAIT_MS). False when something of the request has
   * already committed (or commits meanwhile): its real answer should go out instead.
   */
  async cut(): Promise<boolean> {
    if (this.committed || this.released) return !this.committed;
    this.cutting = true;
    this.abandon?.(new RequestCutError());
    const running = this.running;
    const client = this.client ?? this.statementClient;
    if (running && client) {
      this.broken = true;
      cancelStatement(client);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running.catch(() => undefined), new Promise((done) => (timer = setTimeout(done, CUT_WAIT_MS)))]);
      clearTimeout(timer);
    }
    if (this.committed) {
      this.cutting = false;
      return false;
    }
    return true;
  }

  /** TypeORM's runner on this connection, made when first needed (a transaction, or a repository on TypeORM). */
  private queryRunner(): QueryRunner {
    if (!this.runner) {
      const runner = this.dataSource.createQueryRunner();
      // TypeORM asks its runner for the connection before each statement: it gets this request's.
      runner.connect = () => (this.client ? Promise.resolve(this.client) : this.connect()) as never;
      this.runner = runner;
      if (this.client) wire(runner, this.client);
    }
    return this.runner;
  }

  private connect(): Promise<PoolClient> {
    if (this.cutting) return Promise.reject(new RequestCutError());
    return (this.connecting ??= this.open());
  }

  private async open(): Promise<PoolClient> {
    // A request cut or released while it waited (abandoned here) gives back what it got.
    const { client, leave } = await new Promise<Held>((resolve, reject) => {
      this.abandon = reject;
      this.acquire().then((got) => {
        if (this.cutting || this.released) {
          got.client.release();
          got.leave();
          reject(new RequestCutError());
        } else resolve(got);
      }, reject);
    });
    this.abandon = undefined;
    this.client = client;
    this.leaveTurn = leave;
    // A connection that fails while checked out emits `error`: heard here (no crash), and it is not reused.
    client.on('error', this.onError);
    if (this.runner) wire(this.runner, client);
    const original = client.query;
    // Every statement on this connection (ours and TypeORM's) goes through `track`.
    client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
      const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
      return this.track(text, () => (original as (...a: unknown[]) => Promise<unknown>).call(client, config, values, callback));
    }) as typeof client.query;
    // A service's own transaction() then nests as a savepoint in this one.
    if (this.transactional && !this.autocommit) await this.queryRunner().startTransaction();
    return client;
  }

  /** Sends one statement unless the request was cut, and keeps count of what committed. */
  private track(text: string, send: () => Promise<unknown>): Promise<unknown> {
    const verb = verbOf(text);
    if (this.cutting && verb !== 'ROLLBACK') return Promise.reject(new RequestCutError());
    const sent = send();
    this.running = sent;
    sent.then(
      () => {
        if (verb === 'BEGIN' || verb === 'START') this.inTransaction = true;
        else if (verb === 'COMMIT') {
          this.inTransaction = false;
          this.committed = true;
        } else if (verb === 'ROLLBACK') {
          if (!/^\s*ROLLBACK\s+TO\b/i.test(text)) this.inTransaction = false;
        } else if (!this.inTransaction && verb !== 'SELECT') this.committed = true;
      },
      () => undefined,
    );
    void sent
      .finally(() => {
        if (this.running === sent) this.running = undefined;
      })
      .catch(() => undefined);
    return sent;
  }
}

/** Makes TypeORM's `runner` run its statements and transactions on `client` and give it back on release. */
function wire(runner: QueryRunner, client: PoolClient): void {
  const wired = runner as unknown as { databaseConnection: PoolClient; releaseCallback: (error?: Error) => void };
  wired.databaseConnection = client;
  wired.releaseCallback = (error?: Error) => client.release(error);
}

/** PostgreSQL's cancel request for the statement `client` is running, on a connection of its own (works through PgBouncer too). */
function cancelStatement(client: PoolClient): void {
  const c = client as unknown as { processID: number | null; secretKey: number | null; host: string; port: number };
  if (c.processID === null || c.secretKey === null) return;
  const connection = new Connection() as unknown as {
    on(event: string, listener: () => void): void;
    connect(portOrPath: number | string, host?: string): void;
    cancel(processID: number, secretKey: number): void;
  };
  connection.on('error', () => undefined);
  connection.on('connect', () => connection.cancel(c.processID!, c.secretKey!));
  if (c.host?.startsWith('/')) connection.connect(`${c.host}/.s.PGSQL.${c.port}`);
  else connection.connect(c.port, c.host);
}

/** Where a caller's statements run: the write request's own connection (`caller.db`), else the shared pool `pool`. */
export function dbOf(caller: { db?: Db }, pool: Db): Db {
  return caller.db ?? pool;
}
