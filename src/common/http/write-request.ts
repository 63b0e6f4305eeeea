import { ConflictException, HttpException, Injectable, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { HTTP_CODE_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { randomUUID } from 'crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';

import type { AppEnv } from '../../config/env';
import { InjectSettings } from '../../config/settings';
import { type Caller, callerOfRequest, callerParam } from '../auth/auth-context';
import { isLostRace } from '../database/pg-errors';
import { type Db, RequestDb } from '../database/request-db';
import { toHttpError } from '../errors/to-http-error';
import { IdempotencyRepository, StoredAnswer } from '../idempotency/idempotency.repository';
import { IDEMPOTENCY_MESSAGES, REPLAYED_HEADER, requestFingerprint } from '../idempotency/idempotency-key';
import { deferredBodyError, isNeverStored } from '../validation/body-error';
import { onDeadline, pastDeadline } from './deadline';
import { KeyShare } from './key-share';
import { RawJson } from './raw-json';
import { attachmentStaging, MULTIPART_BODY_OVERHEAD_BYTES, readBodyAhead, releaseReadAhead, streamsBody } from './streamed-body';

/** Longest a cut waits for the request to have rolled back (and released its key) before the 503 goes out. */
const SETTLE_WAIT_MS = 1_000;

/** One KeyShare per pool (per app: tests run several in one process). */
const SHARES = new WeakMap<DataSource, KeyShare>();

/**
 * D35: which answers of a keyed request are stored: 2xx and the 4xx of D3
 * steps 4-9 (what a route's handler throws). Its 408, 429 and 5xx are not.
 */
function storable(status: number): boolean {
  return (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 408 && status !== 429);
}

/** A write request between the guard and its route (WriteRoute): what the route runs with. */
interface PendingWrite {
  readonly writes: WriteRequests;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** Its Idempotency-Key, as the guard accepted it (D35), if any. */
  readonly key: string | undefined;
  /** D35: a keyed request's first malformed path id (D3 step 4), answered after its key's claim, so that it is stored. */
  pathError?: Error;
}

/** Where the guard leaves a write request's PendingWrite: on its Caller, which the route takes. */
const PENDING = Symbol('pending write');
type WithPending = Caller & { [PENDING]?: PendingWrite };

/**
 * Every write route (the Authenticated decorator marks routes of a `:write` scope
 * with WriteRoute): the request's statements run on one connection of its own
 * (Caller.db, a RequestDb), which the REQUEST_TIMEOUT_MS deadline cuts so that a
 * 503 means nothing committed.
 *
 * A POST with an Idempotency-Key (checked by the guard, D35) also claims its key
 * first and then runs in ONE transaction, its 2xx answer stored before COMMIT:
 * a retry replays it (`Idempotent-Replayed: true`) if the write committed and runs
 * anew if not. Another request under the same key: 422; the same one still
 * running: 409. A 4xx of the route is stored after the rollback; any other
 * failure releases the key.
 *
 * One API key's write requests hold at most half the pool's connections at once
 * (KeyShare, taken by RequestDb for each connection and for the key's claim); the
 * others wait on that key's queue, so a key flooding writes (answered or refused)
 * leaves connections to everyone else (issue 31). A request waits for a turn only
 * when it needs a connection: its body checks and its answer wait for nothing.
 *
 * A write racing a delete (a task created in a list being deleted, a comment on
 * a task being deleted, ...) fails in PostgreSQL with a foreign-key violation, a
 * serialization failure or a deadlock, and its transaction is rolled back. The
 * route, access check included, then runs once more (`attempt`): it sees the
 * delete and answers what it would have, had the delete committed first (the
 * contract's 404), or succeeds. Writes are one transaction or one statement, so
 * a failed attempt left nothing behind.
 *
 * Not a Nest interceptor (issue 37): with any interceptor on a route, Nest runs its handler
 * through an rxjs pipeline (a ReplaySubject, the client-disconnect watch, defer, mergeAll, ...)
 * that cost a write about a fifth of its Node CPU. The guard hands the request over (`open`)
 * and the route's handler, wrapped by WriteRoute, runs itself through `run`.
 */
@Injectable()
export class WriteRequests {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: IdempotencyRepository,
    @InjectSettings() private readonly settings: AppEnv,
  ) {}

  /** This app's per-key share of its pool. */
  private share(): KeyShare {
    let share = SHARES.get(this.dataSource);
    if (!share) SHARES.set(this.dataSource, (share = KeyShare.ofPool(this.settings.dbPoolSize)));
    return share;
  }

  /** Called by the guard once it let a write route's request through: its route runs it (`run`). */
  open(caller: Caller, request: FastifyRequest, reply: FastifyReply, key: string | undefined): void {
    (caller as WithPending)[PENDING] = { writes: this, request, reply, key };
  }

  /** The route (`route`: its handler with its arguments; `status`: its success status) as a write request, see the class. */
  async run(caller: Caller, pending: PendingWrite, route: () => Promise<unknown>, status: () => number): Promise<unknown> {
    const { request, key } = pending;
    if (pastDeadline(request)) throw new ServiceUnavailableException();
    const share = this.share();
    const db = new RequestDb(this.dataSource, key !== undefined, () => share.enter(caller.keyId));
    caller.db = db;
    let settle!: () => void;
    const settled = new Promise<void>((done) => (settle = done));
    onDeadline(request, async () => {
      if (!(await db.cut())) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise((done) => (timer = setTimeout(done, SETTLE_WAIT_MS)))]);
      clearTimeout(timer);
      return true;
    });
    try {
      return key === undefined ? await attempt(route, db) : await this.keyed(caller, pending, key, route, status, db);
    } finally {
      void releaseReadAhead(request);
      void db.release().finally(settle);
    }
  }

  /** D35: claim, replay or refuse; else run the route in one transaction and store its answer. */
  private async keyed(
    caller: Caller,
    { request, reply, pathError }: PendingWrite,
    key: string,
    route: () => Promise<unknown>,
    status: () => number,
    db: RequestDb,
  ): Promise<unknown> {
    // D47: a streamed multipart body is the same request only with the same bytes: read it first, up to
    // the limit. (A body that declares a length over the limit is refused unread: 413, nothing to read.)
    const { maxBytes } = this.settings.attachments;
    const limit = maxBytes + MULTIPART_BODY_OVERHEAD_BYTES;
    if (
      streamsBody(request) &&
      /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '') &&
      !(Number(request.headers['content-length']) > limit)
    ) {
      await readBodyAhead(request, attachmentStaging(this.settings.attachments), maxBytes);
    }
    const fingerprint = requestFingerprint(request as never);
    const token = randomUUID();
    const claim = await db.inTurn(() => {
      // A request whose deadline passed while it waited for its turn got its 503: it claims nothing.
      if (pastDeadline(request)) throw new ServiceUnavailableException();
      return this.keys.claim(caller.keyId, key, fingerprint, token);
    });
    if (claim.kind === 'stored') return replay(reply, claim.answer);
    // D35: a replay checks nothing of D7; any other request with a body error answers it (never stored).
    const bodyError = deferredBodyError(request);
    if (bodyError) {
      if (claim.kind === 'claimed') await db.inTurn(() => this.keys.release(caller.keyId, key, token)).catch(() => undefined);
      throw bodyError;
    }
    if (claim.kind === 'other-request') throw new UnprocessableEntityException(IDEMPOTENCY_MESSAGES.otherRequest);
    if (claim.kind === 'in-progress') throw new ConflictException(IDEMPOTENCY_MESSAGES.inProgress);

    let answer: StoredAnswer;
    try {
      if (pathError) throw pathError;
      const value = await attempt(route, db);
      const etag = reply.getHeader('etag');
      answer = {
        status: status(),
        body: value instanceof RawJson ? value.text.toString() : JSON.stringify(value),
        etag: typeof etag === 'string' ? etag : null,
      };
      if (!(await this.keys.store(caller.keyId, key, token, answer, db))) throw new ServiceUnavailableException();
      await db.commit();
    } catch (error) {
      const { status, message } = toHttpError(error);
      // D35: a 4xx is stored, anything else gives the key up; on this request's own connection (no second one
      // while it holds the first: keyed 4xx at once would starve the pool), else once it is given back.
      const settle =
        storable(status) && !isNeverStored(error)
          ? (on?: Db) => this.keys.store(caller.keyId, key, token, { status, body: JSON.stringify({ error: message }), etag: null }, on)
          : (on?: Db) => this.keys.release(caller.keyId, key, token, on);
      await db.endTransaction();
      const settled =
        db.usable &&
        (await settle(db).then(
          () => true,
          () => false,
        ));
      if (!settled) {
        await db.release();
        await db.inTurn<unknown>(() => settle()).catch(() => undefined);
      }
      throw error;
    }
    return new RawJson(answer.body);
  }
}

/** The route's answer; after a lost race (see WriteRequests) the route runs once more, in a new transaction when keyed. */
async function attempt(route: () => Promise<unknown>, db: RequestDb): Promise<unknown> {
  try {
    return await route();
  } catch (error) {
    if (!isLostRace(error)) throw error;
    await db.restart();
    return await route();
  }
}

/** D35: the stored answer again, marked as a replay; a stored error goes out through the error filter (the same `{ error }` bytes). */
function replay(reply: FastifyReply, answer: StoredAnswer): RawJson {
  void reply.header(REPLAYED_HEADER, 'true');
  if (answer.etag !== null) void reply.header('etag', answer.etag);
  if (answer.status >= 400) throw new HttpException((JSON.parse(answer.body) as { error: string }).error, answer.status);
  return new RawJson(answer.body);
}

/**
 * D35 and D3 step 4: whether a malformed path id of `request` waits for its route (a keyed write: its
 * key is claimed first, and the 400 stored), kept to be thrown there; else the caller throws it now.
 * Only the first one waits (path ids are checked left to right).
 */
export function deferPathError(request: object, error: Error): boolean {
  const pending = (callerOfRequest(request) as WithPending | undefined)?.[PENDING];
  if (pending?.key === undefined) return false;
  pending.pathError ??= error;
  return true;
}

/** Marks a write route's handler (WriteRoute), for the tests. */
export const WRITE_ROUTE_KEY = 'write-route';

/**
 * Method decorator of a write route (applied by Authenticated for a `:write` scope): its handler runs
 * as a write request (WriteRequests.run), with the PendingWrite the guard left on its Caller. The
 * handler must take `@CurrentCaller()` (else this throws when the class is declared). Nest's metadata
 * of the handler, set by the decorators below this one, moves to the wrapper.
 */
export const WriteRoute = (): MethodDecorator => (target, property, descriptor) => {
  const handler = descriptor.value as unknown as (...args: unknown[]) => Promise<unknown>;
  const where = `${(target as object).constructor.name}.${String(property)}`;
  const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, (target as object).constructor, property) ?? {}) as Record<
    string,
    { index: number; factory?: unknown }
  >;
  const taken = Object.values(params).find((param) => param.factory === callerParam);
  if (!taken) throw new Error(`Write route ${where} must take @CurrentCaller()`);
  const at = taken.index;
  let status: number | undefined;
  // Read on the first keyed answer: @HttpCode may sit above this decorator, so on the wrapper.
  const statusOf = () => (status ??= (Reflect.getMetadata(HTTP_CODE_METADATA, wrapped) as number | undefined) ?? 201);
  const wrapped = function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const caller = args[at] as WithPending;
    const pending = caller[PENDING];
    if (!pending) throw new Error(`Write route ${where} ran without its guard`);
    return pending.writes.run(caller, pending, () => handler.apply(this, args), statusOf);
  };
  for (const key of Reflect.getOwnMetadataKeys(handler)) Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, handler), wrapped);
  Reflect.defineMetadata(WRITE_ROUTE_KEY, true, wrapped);
  Object.defineProperty(wrapped, 'name', { value: handler.name });
  descriptor.value = wrapped as never;
};
