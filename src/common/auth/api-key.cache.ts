import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { hashApiKey, readApiKey } from './api-key';
import { AuthRepository, StoredApiKey } from './auth.repository';

/** How long a valid key is answered from memory before it is looked up again (and its `last_used_at` refreshed). */
export const API_KEY_CACHE_TTL_MS = 30_000;

/** Delay before the listener connection is opened again after it dropped, doubled per failed attempt up to the maximum. */
const RECONNECT_DELAY_MS = 500;
const RECONNECT_DELAY_MAX_MS = 5_000;

/** The notification channel the api_keys trigger (migration ApiKeyNotify) sends key hashes on. */
export const API_KEY_CHANNEL = 'api_keys';

/**
 * The channel on which every listener acknowledges each key notification it acted on, as
 * `<its backend pid> <key hash>` (everyProcessHeard() waits for these).
 */
export const API_KEY_HEARD_CHANNEL = 'api_keys_heard';

/** Longest wait for the listener to hear its own probe notification before the cache is trusted. */
const PROBE_TIMEOUT_MS = 1_000;
/** Longest wait of everyProcessHeard() for the other processes' acknowledgements. */
const HEARD_TIMEOUT_MS = 1_000;
/** How long acknowledgements are remembered (everyProcessHeard() may ask after they arrived). */
const HEARD_KEEP_MS = 10_000;
/** Payload prefix of the probe notifications (they change no key). */
const PROBE_PREFIX = 'probe:';

/** `application_name` of the listener connection (to find it in pg_stat_activity). */
export const API_KEY_LISTENER_NAME = 'api-key-listener';

/** A request's API key resolved: its SHA-256 hash and its stored row (null: no such key). */
export interface RequestKey {
  hash: string;
  stored: StoredApiKey | null;
}

/** Where a request keeps its key lookup, shared by the rate limiter and the API-key guard (both ask for it). */
const REQUEST_KEY = Symbol('apiKey');

interface Entry {
  key: StoredApiKey;
  /** Date.now() after which the entry is looked up again. */
  staleAt: number;
  /** Date.now() at which the key expires (Infinity when never). */
  expiresAt: number;
}

/**
 * API keys by hash, kept in this process to spare the lookup on most requests.
 * Only valid keys are kept, for at most API_KEY_CACHE_TTL_MS; an
 * expiry is applied from the process clock (the database gives the time left,
 * so clock skew does not matter). A revoke, a scope change or a delete reaches
 * every process through LISTEN/NOTIFY (a trigger on api_keys) within
 * milliseconds. While the listener connection is down (and until it is back
 * and listening), nothing is answered from memory: every request looks its key up.
 * The listener is trusted only once it has heard a probe notification sent from
 * the pool: behind a transaction pooler (PgBouncer) LISTEN succeeds but hears
 * nothing, and the cache then stays off for the life of the process (one warning).
 * Each listener acknowledges every key notification once its process has dropped
 * the key, so a write can wait until every process has (everyProcessHeard).
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeyCache');
  private readonly entries = new Map<string, Entry>();
  private listener: Client | null = null;
  private trusted = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failedAttempts = 0;
  /** Bumped on every notification and on every loss of the listener: a lookup that overlapped one is not kept. */
  private generation = 0;
  /** The probe the listener waits to hear: its payload and what to call when heard. */
  private probe: { payload: string; heard: () => void } | null = null;
  /** Acknowledgements heard lately: key hash → when first heard (Date.now()) and the listener pids that sent one. */
  private readonly acknowledged = new Map<string, { at: number; pids: Set<number> }>();
  /** Callers of everyProcessHeard() by key hash, called on each acknowledgement of it. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Key hashes this process dropped and has yet to acknowledge (sent in one statement per turn of the event loop). */
  private unacknowledged: string[] = [];

  constructor(
    private readonly db: DataSource,
    private readonly keys: AuthRepository,
  ) {}

  /** The stored key with this SHA-256 hash, or null (from memory when trusted and fresh, else one round trip). */
  private async find(hash: string): Promise<StoredApiKey | null> {
    const now = Date.now();
    const entry = this.trusted ? this.entries.get(hash) : undefined;
    if (entry && now < entry.staleAt) {
      if (now < entry.expiresAt) return entry.key;
      this.entries.delete(hash);
      return { ...entry.key, expired: true };
    }
    if (entry) this.entries.delete(hash);

    const generation = this.generation;
    const key = await this.keys.findByHash(hash);
    if (key && !key.expired && !key.revoked && this.trusted && generation === this.generation) {
      const expiresAt = key.ms_left === null ? Infinity : now + key.ms_left;
      this.entries.set(hash, { key, staleAt: now + API_KEY_CACHE_TTL_MS, expiresAt });
    }
    return key;
  }

  /**
   * The API key `request` carries (readApiKey) and its stored row, looked up once per request: the
   * rate limiter asks first, the API-key guard gets the same answer. null: the request sends no key.
   */
  forRequest(request: { headers: Record<string, string | string[] | undefined> }): Promise<RequestKey> | null {
    const kept = request as { [REQUEST_KEY]?: Promise<RequestKey> | null };
    let found = kept[REQUEST_KEY];
    if (found === undefined) {
      const key = readApiKey(request.headers);
      const hash = key ? hashApiKey(key) : null;
      found = hash ? this.find(hash).then((stored) => ({ hash, stored })) : null;
      kept[REQUEST_KEY] = found;
    }
    return found;
  }

  /**
   * Resolves once every process listening on this database (its listener connection seen in
   * pg_stat_activity) has acknowledged that it dropped the key with this SHA-256 hash, or after
   * `timeoutMs`. Called after the commit of a change to the key (D46 revoke): the answer then
   * comes after no process answers the key from memory any more. One round trip. A process that
   * cannot hear acknowledgements (its listener down, or behind a transaction pooler) waits the
   * whole timeout whenever another process listens.
   */
  async everyProcessHeard(hash: string, timeoutMs = HEARD_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let rows: { pid: number }[];
    try {
      rows = await this.db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [API_KEY_LISTENER_NAME]);
    } catch {
      // The change is committed and every listener was notified at commit: the answer stays a success.
      return;
    }
    const pending = () => rows.some((row) => !this.acknowledged.get(hash)?.pids.has(row.pid));
    if (!pending()) return;
    await new Promise<void>((done) => {
      let waiters = this.waiters.get(hash);
      if (!waiters) this.waiters.set(hash, (waiters = new Set()));
      const finish = () => {
        clearTimeout(timer);
        waiters!.delete(check);
        if (waiters!.size === 0 && this.waiters.get(hash) === waiters) this.waiters.delete(hash);
        done();
      };
      const check = () => {
        if (!pending()) finish();
      };
      const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      waiters.add(check);
    });
  }

  /** An acknowledgement (`<pid> <hash>`) arrived: it is remembered a while, and the hash's waiters check again. */
  private wasAcknowledged(payload: string): void {
    const space = payload.indexOf(' ');
    const pid = Number(payload.slice(0, space));
    const hash = payload.slice(space + 1);
    const now = Date.now();
    for (const [h, seen] of this.acknowledged) {
      if (now - seen.at <= HEARD_KEEP_MS) break;
      this.acknowledged.delete(h);
    }
    let seen = this.acknowledged.get(hash);
    if (!seen) this.acknowledged.set(hash, (seen = { at: now, pids: new Set() }));
    seen.pids.add(pid);
    for (const check of [...(this.waiters.get(hash) ?? [])]) check();
  }

  /** Acknowledges on `client` (the listener) the key notifications acted on in this turn of the event loop, in one statement. */
  private acknowledge(client: Client, payload: string): void {
    if (this.unacknowledged.push(payload) > 1) return;
    setImmediate(() => {
      const payloads = this.unacknowledged;
      this.unacknowledged = [];
      // A lost listener is handled by its 'error' and 'end' events.
      const sent = client.query(`SELECT pg_notify($1, pg_backend_pid() || ' ' || h) FROM unnest($2::text[]) h`, [API_KEY_HEARD_CHANNEL, payloads]);
      sent.catch(() => undefined);
    });
  }

  /** Whether keys are currently answered from memory (the listener is connected and listening). */
  get listening(): boolean {
    return this.trusted;
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.distrust();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  /** Opens the listener connection and LISTENs; on failure, retries later (the cache stays unused meanwhile). */
  private async connect(): Promise<void> {
    if (this.closed) return;
    const url = (this.db.options as { url?: string }).url;
    const client = new Client({ connectionString: url, application_name: API_KEY_LISTENER_NAME, keepAlive: true });
    this.listener = client;
    const lost = (reason: string) => {
      if (this.listener !== client) return;
      this.listener = null;
      const wasListening = this.trusted;
      this.distrust();
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (wasListening || this.failedAttempts === 0)
        this.logger.warn(`API key listener lost (${reason}): keys are looked up on every request until it is back`);
      const delay = Math.min(RECONNECT_DELAY_MS * 2 ** this.failedAttempts++, RECONNECT_DELAY_MAX_MS);
      this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection closed'));
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (message.channel === API_KEY_HEARD_CHANNEL) return this.wasAcknowledged(payload);
      if (payload.startsWith(PROBE_PREFIX)) {
        if (payload === this.probe?.payload) this.probe.heard();
        return;
      }
      this.generation++;
      if (!payload || payload === '*') this.entries.clear();
      else this.entries.delete(payload);
      this.acknowledge(client, payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANNEL}; LISTEN ${API_KEY_HEARD_CHANNEL}`);
    } catch (error) {
      lost((error as Error).message);
      return;
    }
    if (this.listener !== client) return;
    if (!(await this.hearsProbe())) {
      if (this.listener !== client) return;
      // A pooler that cannot carry LISTEN: no retry would fare better, so the cache stays off.
      this.closed = true;
      this.listener = null;
      await client.end().catch(() => undefined);
      this.logger.warn('API key changes cannot be heard (LISTEN through a transaction pooler such as PgBouncer?): keys are looked up on every request');
      return;
    }
    if (this.listener !== client) return;
    // Changes made while not listening were missed: start from nothing.
    this.failedAttempts = 0;
    this.entries.clear();
    this.generation++;
    this.trusted = true;
  }

  /** Sends a probe notification from the pool and waits up to PROBE_TIMEOUT_MS for the listener to hear it. */
  private async hearsProbe(): Promise<boolean> {
    const payload = PROBE_PREFIX + randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((done) => {
      this.probe = { payload, heard: () => done(true) };
      timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    });
    try {
      await this.db.query('SELECT pg_notify($1, $2)', [API_KEY_CHANNEL, payload]);
      return await heard;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.probe = null;
    }
  }

  private distrust(): void {
    this.trusted = false;
    this.generation++;
    this.entries.clear();
  }
}
