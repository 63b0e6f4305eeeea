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

/** Longest wait for the listener to hear its own probe notification before the cache is trusted. */
const PROBE_TIMEOUT_MS = 1_000;
/** How long a heard key hash is remembered for heard() (its caller may ask just after the notification arrived). */
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
  /** Key hashes heard lately (hash → Date.now() when heard), and the waiters of heard() (D46). */
  private readonly recentlyHeard = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();

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
   * Resolves once this process has heard the notification of a change to the key with this hash
   * (or already did within the last HEARD_KEEP_MS), at most `timeoutMs` later; at once when keys
   * are not answered from memory. PostgreSQL sends a notification to every listening process at
   * commit: a write that waits for it before answering (D46 revoke) answers after the other
   * processes were told too, not before.
   */
  heard(hash: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
    if (!this.trusted || this.recentlyHeard.has(hash)) return Promise.resolve();
    return new Promise<void>((done) => {
      let waiters = this.waiters.get(hash);
      if (!waiters) this.waiters.set(hash, (waiters = new Set()));
      const finish = () => {
        clearTimeout(timer);
        waiters!.delete(finish);
        if (waiters!.size === 0 && this.waiters.get(hash) === waiters) this.waiters.delete(hash);
        done();
      };
      const timer = setTimeout(finish, timeoutMs);
      waiters.add(finish);
    });
  }

  /** A notification for `hash` arrived: its waiters go on; it is remembered a while for later callers of heard(). */
  private wasHeard(hash: string): void {
    const now = Date.now();
    for (const [h, at] of this.recentlyHeard) {
      if (now - at <= HEARD_KEEP_MS) break;
      this.recentlyHeard.delete(h);
    }
    this.recentlyHeard.delete(hash);
    this.recentlyHeard.set(hash, now);
    for (const finish of [...(this.waiters.get(hash) ?? [])]) finish();
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
      if (message.payload?.startsWith(PROBE_PREFIX)) {
        if (message.payload === this.probe?.payload) this.probe.heard();
        return;
      }
      this.generation++;
      if (!message.payload || message.payload === '*') this.entries.clear();
      else this.entries.delete(message.payload);
      if (message.payload) this.wasHeard(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANNEL}`);
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
