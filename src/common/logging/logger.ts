import type { LoggerService } from '@nestjs/common';
import { randomUUID } from 'crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'http';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';

import type { AppEnv, LogLevelName } from '../../config/env';
import { processSettings } from '../../config/settings';

/*
 * Structured logs: pino, one JSON object per line on stdout
 * (pretty only on a terminal, or with LOG_FORMAT=pretty), one line per
 * request, an `X-Request-Id` accepted or generated and returned, and API
 * keys never written (Authorization and X-API-Key are redacted).
 */

/** Header carrying the request id, read from the request when valid and always sent back. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** A client's request id is kept when it is 1-128 characters of this set; otherwise a UUID is generated. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** What a request line shows instead of an API key or a cookie. */
const REDACTED = '[redacted]';

/** pino's level for a LOG_LEVEL value (Nest's `log` is pino's `info`, `verbose` is `trace`). */
export function pinoLevel(level: LogLevelName): Level | 'silent' {
  if (level === 'log') return 'info';
  if (level === 'verbose') return 'trace';
  return level;
}

/** True when lines are printed for humans: LOG_FORMAT=pretty, or `auto` on a terminal. */
export function prettyLogs(env: Pick<AppEnv, 'logFormat'>, stream: { isTTY?: boolean } = process.stdout): boolean {
  return env.logFormat === 'pretty' || (env.logFormat === 'auto' && stream.isTTY === true);
}

/** Bytes of JSON lines gathered before one write to stdout. */
const BUFFER_BYTES = 4096;
/** Longest time a JSON line waits in that buffer, in milliseconds. */
const FLUSH_INTERVAL_MS = 200;

/** The second `isoTime` last formatted (ms since the epoch / 1000) and its text up to the milliseconds. */
let formattedSecond = NaN;
let secondPrefix = '';

/**
 * pino's timestamp field, `,"time":"2026-11-26T03:26:04.725Z"` (ISO 8601, UTC, milliseconds: the same
 * text as pino's isoTime), formatting the date once per second: a Date and its toISOString per line
 * cost about 3 us of a request's CPU.
 */
export function isoTime(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== formattedSecond) {
    formattedSecond = second;
    secondPrefix = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
  }
  const ms = now - second * 1000;
  return `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}

/**
 * Nest's own start-up narration (modules initialised, every route mapped, "application started"):
 * written at `debug`, so that a start shows what matters (LOG_LEVEL=debug shows these lines too).
 */
const NEST_START_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * The process's root logger. `destination` defaults to stdout: JSON lines
 * buffered (BUFFER_BYTES, FLUSH_INTERVAL_MS; flushed on exit), pretty lines
 * written at once, with colours only on a terminal.
 */
export function createRootLogger(env: Pick<AppEnv, 'logLevel' | 'logFormat'>, destination?: DestinationStream): Logger {
  let stream = destination;
  if (!stream) {
    if (prettyLogs(env)) {
      // Loaded only when asked for: production images need not use it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const pretty = require('pino-pretty') as (options: object) => DestinationStream;
      stream = pretty({ colorize: process.stdout.isTTY === true, sync: true, ignore: 'pid,hostname' });
    } else {
      // Lines are gathered and written a few KiB at a time (one write per request costed ~5% of a
      // request's CPU), at the latest FLUSH_INTERVAL_MS after they were logged;
      // what is left is written when the process exits. The write itself is synchronous, pino's
      // default: an asynchronous one hands each batch to libuv's thread pool, whose thread then
      // runs on the server's core, and measured 25-30 us per request against 2 us.
      const buffered = pino.destination({ dest: 1, sync: true, minLength: BUFFER_BYTES });
      setInterval(() => buffered.flush(), FLUSH_INTERVAL_MS).unref();
      // pino flushes by itself at exit only its asynchronous destinations.
      process.on('exit', () => buffered.flushSync());
      stream = buffered;
    }
  }
  return pino(
    {
      level: pinoLevel(env.logLevel),
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}

/**
 * The request id (Fastify's `genReqId`): the client's `X-Request-Id` when
 * acceptable, else a new UUID. configureHttp sends it back on every answer.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}

/**
 * Request headers a request line shows (never all of them). The key
 * forms of D20 and cookies appear only as `[redacted]`; every other value is
 * cut at MAX_HEADER_CHARS characters.
 */
const LOGGED_HEADERS = ['host', 'user-agent', 'content-type', 'content-length', 'accept', 'origin', 'referer', 'x-forwarded-for', REQUEST_ID_HEADER];
const REDACTED_HEADERS = ['authorization', 'x-api-key', 'cookie'];
/** Longest header value a log line carries, in characters. */
export const MAX_HEADER_CHARS = 256;

/** Longest URL (path and parameter names) a log line carries, in characters. */
const MAX_URL_CHARS = 2048;

/**
 * A URL as logs show it: the path, and of the query string only the parameter names, each once
 * (`/api/v1/workspaces/1/tasks?q&status`): values (search text, ids of what someone looks at,
 * a token pasted into a link) stay out of the logs.
 */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  let shown = url;
  if (mark >= 0) {
    const names = new Set<string>();
    for (const pair of url.slice(mark + 1).split('&')) {
      const eq = pair.indexOf('=');
      const name = eq >= 0 ? pair.slice(0, eq) : pair;
      if (name !== '') names.add(name);
    }
    shown = url.slice(0, mark) + (names.size ? '?' + [...names].join('&') : '');
  }
  return shown.length > MAX_URL_CHARS ? shown.slice(0, MAX_URL_CHARS) : shown;
}

/** The allowlisted headers of a request as its log line shows them. */
export function loggedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of LOGGED_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : value;
    const text = name === 'referer' ? loggedUrl(joined) : joined;
    shown[name] = text.length > MAX_HEADER_CHARS ? text.slice(0, MAX_HEADER_CHARS) : text;
  }
  for (const name of REDACTED_HEADERS) if (headers[name] !== undefined) shown[name] = REDACTED;
  return shown;
}

/** What a request line says about one answered request. */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route pattern (`/api/v1/tasks/:task_id`), absent for an unknown route. */
  route: string | undefined;
  url: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  status: number;
  durationMs: number;
  workspaceId?: number;
  keyId?: number;
}

/**
 * Writes the one line of an answered request: `info`, or `error`
 * for a 5xx; message `METHOD route status`. Nothing is built when the level is off.
 */
export function logRequest(logger: Logger, line: RequestLine): void {
  const level: Level = line.status >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      request_id: line.requestId,
      route: line.route,
      workspace_id: line.workspaceId,
      key_id: line.keyId,
      req: { method: line.method, url: loggedUrl(line.url), headers: loggedHeaders(line.headers), remote_address: line.remoteAddress },
      res: { status: line.status },
      duration_ms: Math.round(line.durationMs),
    },
    `${line.method} ${line.route ?? loggedUrl(line.url)} ${line.status}`,
  );
}

/** Nest's LoggerService over a pino logger: for logs written before the app exists (bootstrap, CLI). */
export function nestLogger(logger: Logger): LoggerService {
  const write = (asked: Level, message: unknown, params: unknown[]) => {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    const level = asked === 'info' && context !== undefined && NEST_START_CONTEXTS.has(context) ? 'debug' : asked;
    if (!logger.isLevelEnabled(level)) return;
    if (message instanceof Error) logger[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) logger[level]({ context, ...message });
    else logger[level]({ context }, String(message));
  };
  return {
    fatal: (m, ...p) => write('fatal', m, p),
    error: (m, ...p) => write('error', m, p),
    warn: (m, ...p) => write('warn', m, p),
    log: (m, ...p) => write('info', m, p),
    debug: (m, ...p) => write('debug', m, p),
    verbose: (m, ...p) => write('trace', m, p),
  };
}

let root: Logger | undefined;
/** The process's root logger, created on first use from LOG_LEVEL and LOG_FORMAT. */
export function rootLogger(env: Pick<AppEnv, 'logLevel' | 'logFormat'>): Logger {
  return (root ??= createRootLogger(env));
}

/** The process's root logger as created (LOG_LEVEL, LOG_FORMAT of the environment) or replaced. */
export function processLogger(): Logger {
  return (root ??= createRootLogger(processSettings()));
}

/** Replaces the process's root logger (tests capture lines with it). Returns the previous one. */
export function replaceRootLogger(logger: Logger | undefined): Logger | undefined {
  const previous = root;
  root = logger;
  return previous;
}
