import Joi from 'joi';
import { isIP } from 'net';
import { join } from 'path';

import { DEFAULT_TIMEOUTS, Timeouts } from './timeouts';

/*
 * The process configuration: every environment variable the
 * server and the CLI read, checked once at boot with Joi. A bad value stops
 * the process with one line naming the variable and what it accepts. This
 * table is the one list: the README configuration table is checked against
 * it by a test (test/e2e/ops.e2e-spec.ts). The timeouts, prepared statements
 * and WEB_CONCURRENCY are validated and converted here too: their users take
 * them from loadEnv, no second parser.
 */

/** Log levels accepted by LOG_LEVEL: Nest's names and pino's. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'info', 'debug', 'verbose', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** STORAGE_DRIVER: where attachment bytes live (D47). */
export const STORAGE_DRIVERS = ['local', 's3'] as const;

/** LOG_FORMAT: `auto` is pretty on a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

const BOOLEAN = Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').sensitive(false);
/**
 * A whole number from `min` to `max` written with digits only (`1e3`, `1.5`, `0x10` are refused, not converted),
 * converted to a number.
 */
const DIGITS = (min: number, max: number) =>
  Joi.string()
    .trim()
    .pattern(/^[0-9]+$/)
    .custom((text: string) => {
      const n = Number(text);
      if (n < min || n > max) throw new Error('out of range');
      return n;
    });
const PORT = (min: number) => DIGITS(min, 65535);
/** Longest duration a Node.js timer takes (2^31-1 ms); a longer one fires at once, so it is refused at start-up. */
export const MAX_MILLISECONDS = 2147483647;
/** A timeout (defaults from common/timeouts.ts): digits only, from 1 to MAX_MILLISECONDS. */
const MILLISECONDS = (ms: number) => ({
  schema: DIGITS(1, MAX_MILLISECONDS).default(ms),
  accepts: `a whole number of milliseconds from 1 to ${MAX_MILLISECONDS}`,
  default: String(ms),
});

/** proxy-addr's names of address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address (`10.0.0.1`, `::1`), a CIDR range (`10.0.0.0/8`) or a range name of proxy-addr. */
function isProxyAddress(item: string): boolean {
  if (PROXY_RANGE_NAMES.includes(item)) return true;
  const [address, bits, extra] = item.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  return bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/** Fastify's `trustProxy` as a function: whether the address `hop` steps from the socket's peer is a proxy. */
export type TrustProxyFunction = (address: string, hop: number) => boolean;

/**
 * Trust of `hops` proxies in front of the server: the socket's peer and the rightmost `hops - 1`
 * addresses of X-Forwarded-For are proxies, the next one to the left is the client; 0 trusts none.
 * A function, as Fastify takes it (it reads a bare number as "trust nothing").
 */
export function trustHops(hops: number): TrustProxyFunction | false {
  return hops === 0 ? false : (_address, hop) => hop < hops;
}

/**
 * TRUST_PROXY, as Fastify's `trustProxy` takes it: `true`/`false` (and the other boolean
 * spellings but `1`/`0`), a number of proxy hops (digits: see trustHops), or a comma-separated list of
 * proxy addresses and CIDR ranges.
 */
const TRUST_PROXY = Joi.string()
  .trim()
  .custom((text: string) => {
    const word = text.toLowerCase();
    if (['true', 'yes', 'on'].includes(word)) return true;
    if (['false', 'no', 'off'].includes(word)) return false;
    if (/^[0-9]+$/.test(text)) {
      const hops = Number(text);
      if (hops > 255) throw new Error('too many hops');
      return trustHops(hops);
    }
    const items = text.split(',').map((item) => item.trim());
    if (!items.every(isProxyAddress)) throw new Error('not an address list');
    return items;
  });

/** D38: the default retry schedule of webhook deliveries (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
const DEFAULT_RETRY_DELAYS = '5000,300000,1800000,7200000,18000000,36000000,36000000';
/** D38: the longest delay between two delivery attempts (one day). */
const MAX_RETRY_DELAY = 86_400_000;
/** WEBHOOK_RETRY_DELAYS_MS: digits-only delays, comma-separated; empty: no retries. Converted to numbers. */
const RETRY_DELAYS = Joi.any().custom((text: unknown) => {
  if (typeof text !== 'string') throw new Error('not a text');
  return parseRetryDelays(text);
});

/** The delays of a WEBHOOK_RETRY_DELAYS_MS text, in ms; throws on an item that is not digits or is over a day. */
function parseRetryDelays(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((item) => {
    const delay = item.trim();
    if (!/^[0-9]+$/.test(delay) || Number(delay) > MAX_RETRY_DELAY) throw new Error('not a delay');
    return Number(delay);
  });
}

/** One variable: its schema (with its default), what it accepts (for the error line) and what it means (README). */
interface Variable {
  schema: Joi.Schema;
  accepts: string;
  /** Default as the README shows it; undefined when unset means something (described in `meaning`). */
  default?: string;
  /** The README's default column when the default is not a value to show (a built-in secret). */
  defaultText?: string;
  /** What an error line must not show of a bad value: the password of a URL, or all of it. */
  secret?: 'password' | 'whole';
}

/** What replaces a secret in a configuration error. */
const MASK = '***';

/**
 * `value` as a configuration error may show it: for `password`, a URL's password (the text between
 * `user:` and the last `@`, with or without `scheme://`) is replaced by `***`; for `whole`, all of it.
 */
export function shownValue(value: string, secret: Variable['secret']): string {
  if (secret === 'whole') return value === '' ? value : MASK;
  if (secret !== 'password') return value;
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const start = value.indexOf('//') >= 0 && value.indexOf('//') < at ? value.indexOf('//') + 2 : 0;
  const colon = value.indexOf(':', start);
  return colon >= 0 && colon < at ? `${value.slice(0, colon + 1)}${MASK}${value.slice(at)}` : value;
}

/** Every variable, in README order. */
export const VARIABLES = {
  DATABASE_URL: {
    schema: Joi.string()
      .trim()
      .uri({ scheme: ['postgres', 'postgresql'] })
      .empty(''),
    accepts: 'a postgres://user:pass@host:port/db URL',
    secret: 'password',
  },
  PORT: { schema: PORT(0).default(3000), accepts: 'a port number from 0 to 65535', default: '3000' },
  HOST: { schema: Joi.string().trim().hostname().default('0.0.0.0'), accepts: 'a host name or IP address', default: '0.0.0.0' },
  DATA_DIR: { schema: Joi.string().trim().empty('').default('.data'), accepts: 'a directory path', default: './.data' },
  EMBEDDED_PG_PORT: { schema: PORT(1).empty(''), accepts: 'a port number from 1 to 65535', default: '5433' },
  MIGRATIONS_RUN: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  DB_POOL_SIZE: { schema: Joi.number().integer().min(1).max(1000).default(10), accepts: 'an integer from 1 to 1000', default: '10' },
  DB_CONNECT_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.dbConnect),
  DB_STATEMENT_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.dbStatement),
  DB_POOL_IDLE_TIMEOUT_MS: {
    schema: DIGITS(0, MAX_MILLISECONDS).default(DEFAULT_TIMEOUTS.dbIdle),
    accepts: `0 (keep unused connections) or a whole number of milliseconds up to ${MAX_MILLISECONDS}`,
    default: String(DEFAULT_TIMEOUTS.dbIdle),
  },
  REQUEST_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.request),
  HTTP_REQUEST_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.httpRequest),
  HTTP_IDLE_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.httpIdle),
  SHUTDOWN_TIMEOUT_MS: MILLISECONDS(DEFAULT_TIMEOUTS.shutdown),
  SHUTDOWN_DELAY_MS: {
    schema: DIGITS(0, MAX_MILLISECONDS).default(DEFAULT_TIMEOUTS.shutdownDelay),
    accepts: `0 (stop accepting at once) or a whole number of milliseconds up to ${MAX_MILLISECONDS}`,
    default: String(DEFAULT_TIMEOUTS.shutdownDelay),
  },
  DB_PREPARED_STATEMENTS: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  WEB_CONCURRENCY: { schema: Joi.number().integer().min(1).max(256).default(1), accepts: 'an integer from 1 to 256', default: '1' },
  LOG_LEVEL: {
    schema: Joi.string()
      .trim()
      .lowercase()
      .valid(...LOG_LEVELS)
      .default('log'),
    accepts: `one of ${LOG_LEVELS.join(', ')}`,
    default: 'log',
  },
  LOG_FORMAT: {
    schema: Joi.string()
      .trim()
      .lowercase()
      .valid(...LOG_FORMATS)
      .default('auto'),
    accepts: `one of ${LOG_FORMATS.join(', ')}`,
    default: 'auto',
  },
  // Off unless set: a limit is a deployment's choice (docker-compose.yml sets 6000); a default one would
  // throttle load tests and test suites that call the API harder than any single integration should.
  RATE_LIMIT_PER_MINUTE: {
    schema: Joi.number().integer().min(0).default(0),
    accepts: 'an integer, 0 or more (0 turns rate limiting off)',
    default: '0',
  },
  REDIS_URL: {
    schema: Joi.string()
      .trim()
      .uri({ scheme: ['redis', 'rediss'] })
      .empty(''),
    accepts: 'a redis://host:port URL',
    secret: 'password',
  },
  TRUST_PROXY: {
    schema: TRUST_PROXY.default(false),
    accepts: 'true, false, a number of proxies (0 to 255) or a comma-separated list of proxy addresses or CIDR ranges',
    default: 'false',
  },
  CORS_ORIGINS: {
    schema: Joi.string()
      .trim()
      .empty('')
      .pattern(/^(\*|https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)$/),
    accepts: '* or a comma-separated list of origins such as https://app.example.com',
  },
  DOCS_ENABLED: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  METRICS_ENABLED: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  // D35: how long a stored answer to an Idempotency-Key is replayed (at most 10 years).
  IDEMPOTENCY_TTL_SECONDS: { schema: DIGITS(1, 315_360_000).default(86_400), accepts: 'a whole number of seconds from 1 to 315360000', default: '86400' },
  // D36: update and delete task need If-Match (428 without it).
  REQUIRE_IF_MATCH: { schema: BOOLEAN.default(false), accepts: 'true or false', default: 'false' },
  // Read by tasks/cursor-secret.ts, once at start-up.
  CURSOR_SECRET: { schema: Joi.string().empty(''), accepts: 'a non-empty text', defaultText: 'random, in the database', secret: 'whole' },
  // Read by events/events-retention.ts (D37).
  EVENTS_RETENTION_DAYS: { schema: DIGITS(1, Number.MAX_SAFE_INTEGER).default(30), accepts: 'a whole number of days, 1 or more', default: '30' },
  // D38: webhook deliveries (src/webhooks).
  WEBHOOK_TIMEOUT_MS: MILLISECONDS(10_000),
  WEBHOOK_RETRY_DELAYS_MS: {
    schema: RETRY_DELAYS.default(parseRetryDelays(DEFAULT_RETRY_DELAYS)),
    accepts: `a comma-separated list of whole numbers of milliseconds from 0 to ${MAX_RETRY_DELAY}, or nothing`,
    default: DEFAULT_RETRY_DELAYS,
  },
  WEBHOOK_ALLOW_PRIVATE: { schema: BOOLEAN.default(false), accepts: 'true or false', default: 'false' },
  WEBHOOK_ALLOW_HTTP: { schema: BOOLEAN.default(false), accepts: 'true or false', default: 'false' },
  WEBHOOK_WORKER: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  WEBHOOKS_PER_WORKSPACE_MAX: { schema: DIGITS(1, 1_000_000).default(20), accepts: 'a whole number from 1 to 1000000', default: '20' },
  // D47: attachments (src/attachments).
  ATTACHMENT_MAX_BYTES: { schema: DIGITS(0, Number.MAX_SAFE_INTEGER).default(26_214_400), accepts: 'a whole number of bytes', default: '26214400' },
  ATTACHMENT_UPLOAD_TTL_SECONDS: { schema: DIGITS(1, 604_800).default(3600), accepts: 'a whole number of seconds from 1 to 604800', default: '3600' },
  ATTACHMENT_DOWNLOAD_TTL_SECONDS: { schema: DIGITS(1, 604_800).default(300), accepts: 'a whole number of seconds from 1 to 604800', default: '300' },
  ATTACHMENT_WORKSPACE_QUOTA_BYTES: {
    schema: DIGITS(0, Number.MAX_SAFE_INTEGER).default(0),
    accepts: 'a whole number of bytes, 0 or more (0: no quota)',
    default: '0',
  },
  ATTACHMENT_WORKER: { schema: BOOLEAN.default(true), accepts: 'true or false', default: 'true' },
  STORAGE_DRIVER: {
    schema: Joi.string()
      .trim()
      .lowercase()
      .valid(...STORAGE_DRIVERS)
      .default('local'),
    accepts: `one of ${STORAGE_DRIVERS.join(', ')}`,
    default: 'local',
  },
  STORAGE_DIR: { schema: Joi.string().trim().empty(''), accepts: 'a directory path', defaultText: '<DATA_DIR>/files' },
  S3_BUCKET: {
    schema: Joi.string()
      .trim()
      .empty('')
      .pattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/),
    accepts: 'an S3 bucket name',
  },
  S3_REGION: {
    schema: Joi.string()
      .trim()
      .empty('')
      .pattern(/^[a-z0-9-]{1,64}$/),
    accepts: 'an AWS region such as eu-west-1',
  },
  S3_ENDPOINT: {
    schema: Joi.string()
      .trim()
      .empty('')
      .uri({ scheme: ['http', 'https'] }),
    accepts: 'an http or https URL',
  },
  S3_FORCE_PATH_STYLE: { schema: BOOLEAN.default(false), accepts: 'true or false', default: 'false' },
  PUBLIC_URL: {
    schema: Joi.string()
      .trim()
      .empty('')
      .uri({ scheme: ['http', 'https'] }),
    accepts: 'an http or https URL such as https://api.example.com',
    defaultText: 'http://localhost:<PORT> when HOST is 0.0.0.0 or ::, else http://<HOST>:<PORT>',
  },
} satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

/** The validated configuration. */
export interface AppEnv {
  databaseUrl?: string;
  port: number;
  /** Whether PORT was given (the CLI's curl line otherwise names the port a running server recorded). */
  portSet: boolean;
  host: string;
  dataDir: string;
  embeddedPgPort?: number;
  migrationsRun: boolean;
  dbPoolSize: number;
  /** DB_*_TIMEOUT_MS, REQUEST_TIMEOUT_MS, HTTP_*_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS. */
  timeouts: Timeouts;
  /** DB_PREPARED_STATEMENTS: parameterised statements are named prepared statements. */
  preparedStatements: boolean;
  /** WEB_CONCURRENCY: server processes. */
  webConcurrency: number;
  logLevel: LogLevelName;
  logFormat: (typeof LOG_FORMATS)[number];
  /** Requests per minute per API key (per client IP before authentication); 0: off. */
  rateLimitPerMinute: number;
  redisUrl?: string;
  /** Fastify's `trustProxy`: trust every proxy, none, this many hops (trustHops), or these addresses and ranges. */
  trustProxy: boolean | TrustProxyFunction | string[];
  /** Allowed CORS origins; empty: CORS off; `['*']`: any origin. */
  corsOrigins: string[];
  docsEnabled: boolean;
  metricsEnabled: boolean;
  /** IDEMPOTENCY_TTL_SECONDS: a stored Idempotency-Key answer is replayed this long after it was stored (D35). */
  idempotencyTtlSeconds: number;
  /** REQUIRE_IF_MATCH: update and delete task without If-Match answer 428 (D36). */
  requireIfMatch: boolean;
  /** CURSOR_SECRET; unset: the random secret created in the database at migration. */
  cursorSecret?: string;
  /** EVENTS_RETENTION_DAYS: events are kept at least this many days, then pruned (D37). */
  eventsRetentionDays: number;
  /** WEBHOOK_*: how webhooks are checked and delivered (D38). */
  webhooks: WebhookSettings;
  /** ATTACHMENT_*, STORAGE_*, S3_*, PUBLIC_URL: attachments and their bytes (D47). */
  attachments: AttachmentSettings;
}

/** D47: attachment settings. */
export interface AttachmentSettings {
  /** ATTACHMENT_MAX_BYTES: largest file. */
  maxBytes: number;
  /** ATTACHMENT_UPLOAD_TTL_SECONDS: how long a declared upload accepts bytes. */
  uploadTtlSeconds: number;
  /** ATTACHMENT_DOWNLOAD_TTL_SECONDS: how long a download link is valid. */
  downloadTtlSeconds: number;
  /** ATTACHMENT_WORKSPACE_QUOTA_BYTES: confirmed and pending bytes per workspace; 0: no quota. */
  workspaceQuotaBytes: number;
  /** ATTACHMENT_WORKER: this process removes deleted bytes and reaps expired uploads. */
  worker: boolean;
  driver: (typeof STORAGE_DRIVERS)[number];
  /** STORAGE_DIR (local driver). */
  dir: string;
  /** S3_* (s3 driver). */
  s3: { bucket?: string; region?: string; endpoint?: string; forcePathStyle: boolean };
  /** PUBLIC_URL without a trailing slash: the base of the local driver's links. */
  publicUrl: string;
}

/** D38: webhook settings. */
export interface WebhookSettings {
  /** WEBHOOK_TIMEOUT_MS: an attempt without a response within this is a `timeout`. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_DELAYS_MS: delay before attempt k+1 after attempt k ended, ms; empty: no retries. */
  retryDelaysMs: number[];
  /** WEBHOOK_ALLOW_PRIVATE: private, loopback and other non-public addresses are allowed. */
  allowPrivate: boolean;
  /** WEBHOOK_ALLOW_HTTP: `http` URLs are allowed beside `https`. */
  allowHttp: boolean;
  /** WEBHOOK_WORKER: this process delivers webhooks (runs the job worker). */
  worker: boolean;
  /** WEBHOOKS_PER_WORKSPACE_MAX: a workspace holds at most this many webhooks (D38). */
  perWorkspaceMax: number;
}

/** A configuration error: `message` is the one line to print. */
export class ConfigError extends Error {}

const SCHEMA = Joi.object(Object.fromEntries(Object.entries(VARIABLES).map(([name, v]) => [name, v.schema]))).unknown(true);

/**
 * Validates `env` and returns the typed configuration, frozen (it is read-only
 * for the life of an app; config/settings.ts hands it out).
 *
 * @throws ConfigError `Invalid configuration: PORT="abc": expected a port number from 0 to 65535`
 */
export function loadEnv(env: NodeJS.ProcessEnv): AppEnv {
  const { value, error } = SCHEMA.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const name = String(error.details[0]?.context?.key ?? error.details[0]?.path[0] ?? '');
    const variable = (VARIABLES as Record<string, Variable>)[name];
    const accepts = variable?.accepts ?? error.message;
    const shown = shownValue(env[name] ?? '', variable?.secret);
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(shown)}: expected ${accepts}`);
  }
  const v = value as Record<VariableName, never>;
  const cors = v.CORS_ORIGINS as string | undefined;
  return deepFreeze({
    databaseUrl: v.DATABASE_URL,
    port: v.PORT,
    portSet: (env.PORT ?? '').trim() !== '',
    host: v.HOST,
    dataDir: v.DATA_DIR,
    embeddedPgPort: v.EMBEDDED_PG_PORT,
    migrationsRun: v.MIGRATIONS_RUN,
    dbPoolSize: v.DB_POOL_SIZE,
    timeouts: {
      dbConnect: Number(v.DB_CONNECT_TIMEOUT_MS),
      dbStatement: Number(v.DB_STATEMENT_TIMEOUT_MS),
      dbIdle: Number(v.DB_POOL_IDLE_TIMEOUT_MS),
      request: Number(v.REQUEST_TIMEOUT_MS),
      httpRequest: Number(v.HTTP_REQUEST_TIMEOUT_MS),
      httpIdle: Number(v.HTTP_IDLE_TIMEOUT_MS),
      shutdown: Number(v.SHUTDOWN_TIMEOUT_MS),
      shutdownDelay: Number(v.SHUTDOWN_DELAY_MS),
    },
    preparedStatements: v.DB_PREPARED_STATEMENTS,
    webConcurrency: v.WEB_CONCURRENCY,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    redisUrl: v.REDIS_URL,
    trustProxy: v.TRUST_PROXY,
    corsOrigins: cors ? cors.split(',').map((o) => o.trim()) : [],
    docsEnabled: v.DOCS_ENABLED,
    metricsEnabled: v.METRICS_ENABLED,
    idempotencyTtlSeconds: Number(v.IDEMPOTENCY_TTL_SECONDS),
    requireIfMatch: v.REQUIRE_IF_MATCH,
    cursorSecret: v.CURSOR_SECRET,
    eventsRetentionDays: Number(v.EVENTS_RETENTION_DAYS),
    webhooks: {
      timeoutMs: Number(v.WEBHOOK_TIMEOUT_MS),
      retryDelaysMs: v.WEBHOOK_RETRY_DELAYS_MS,
      allowPrivate: v.WEBHOOK_ALLOW_PRIVATE,
      allowHttp: v.WEBHOOK_ALLOW_HTTP,
      worker: v.WEBHOOK_WORKER,
      perWorkspaceMax: Number(v.WEBHOOKS_PER_WORKSPACE_MAX),
    },
    attachments: attachmentSettings(v, env),
  });
}

/** D47: the attachment settings of validated values `v`; S3_BUCKET is required with the s3 driver. */
function attachmentSettings(v: Record<VariableName, never>, env: NodeJS.ProcessEnv): AttachmentSettings {
  const driver = v.STORAGE_DRIVER as AttachmentSettings['driver'];
  if (driver === 's3' && !v.S3_BUCKET)
    throw new ConfigError(`Invalid configuration: S3_BUCKET=${JSON.stringify(env.S3_BUCKET ?? '')}: expected an S3 bucket name (STORAGE_DRIVER is s3)`);
  const host = v.HOST as string;
  const port = v.PORT as number;
  const local = host === '0.0.0.0' || host === '::' ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host;
  const publicUrl = ((v.PUBLIC_URL as string | undefined) ?? `http://${local}:${port}`).replace(/\/+$/, '');
  return {
    maxBytes: Number(v.ATTACHMENT_MAX_BYTES),
    uploadTtlSeconds: Number(v.ATTACHMENT_UPLOAD_TTL_SECONDS),
    downloadTtlSeconds: Number(v.ATTACHMENT_DOWNLOAD_TTL_SECONDS),
    workspaceQuotaBytes: Number(v.ATTACHMENT_WORKSPACE_QUOTA_BYTES),
    worker: v.ATTACHMENT_WORKER,
    driver,
    dir: (v.STORAGE_DIR as string | undefined) ?? join(v.DATA_DIR as string, 'files'),
    s3: { bucket: v.S3_BUCKET, region: v.S3_REGION, endpoint: v.S3_ENDPOINT, forcePathStyle: v.S3_FORCE_PATH_STYLE },
    publicUrl,
  };
}

/** `value` with it and every object inside it frozen. */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object') deepFreeze(inner as object);
  return Object.freeze(value);
}
