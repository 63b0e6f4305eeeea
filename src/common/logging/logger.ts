import { RequestMethod, type LoggerService } from '@nestjs/common';
import { randomUUID } from 'crypto';
import type { IncomingMessage } from 'http';
import { PinoLogger, type Params } from 'nestjs-pino';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import type { AppEnv, LogLevelName } from '../../config/env';

/*
 * Structured logs (issue 12): pino, one JSON object per line on stdout
 * (pretty only on a terminal, or with LOG_FORMAT=pretty), one line per
 * request, an `X-Request-Id` accepted or generated and returned, and API
 * keys never written (Authorization and X-API-Key are redacted).
 */

/** Header carrying the request id, read from the request when valid and always sent back. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** A client's request id is kept when it is 1-128 characters of this set; otherwise a UUID is generated. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:\-]{1,128}$/;
/** Paths pino redacts from every line: the API key forms of D20, and cookies. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'];

/** Fields the request line carries, collected on the raw request while it is served. */
export interface RequestLogFields {
  route?: string;
  key_id?: number;
}
const FIELDS = Symbol('requestLogFields');
type WithFields = IncomingMessage & { [FIELDS]?: RequestLogFields; id?: unknown };

/** Records fields for the request line of `raw` (route pattern, API key id). */
export function setRequestLogFields(raw: IncomingMessage, fields: RequestLogFields): void {
  const target = raw as WithFields;
  target[FIELDS] = { ...target[FIELDS], ...fields };
}

// Not `new PinoLogger()`: its constructor would build nestjs-pino's process-wide
// pino-http instance from empty parameters before LoggerModule passes ours.
const assignToRequest = PinoLogger.prototype.assign;
/**
 * Adds fields to every later line of the current request, its request line
 * included (e.g. `workspace_id` once the access check knows it). Outside a
 * request (CLI, scripts) it does nothing.
 */
export function annotateRequestLog(fields: Record<string, unknown>): void {
  try {
    assignToRequest.call(undefined as unknown as PinoLogger, fields);
  } catch {
    // no request in scope
  }
}

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

/**
 * The process's root logger. `destination` defaults to stdout (synchronous
 * writes, so the last lines before an exit are not lost; pino-pretty with
 * colours only on a terminal).
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
      stream = pino.destination({ dest: 1, sync: true });
    }
  }
  return pino(
    {
      level: pinoLevel(env.logLevel),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
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

/** nestjs-pino's parameters: one line per request with method, route, status, duration, ids. */
export function loggerModuleParams(logger: Logger): Params {
  return {
    assignResponse: true,
    // nestjs-pino's default, `{/*splat}`, matches no request under @nestjs/platform-fastify 12.5: every path here.
    forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
    pinoHttp: {
      logger,
      // Fastify's request id (createAdapter: genReqId), which the raw request carries as `id`.
      genReqId: (req) => (req as WithFields).id as string,
      quietReqLogger: true,
      customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
      customProps: (req) => ({ ...(req as WithFields)[FIELDS] }),
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      customSuccessMessage: (req, res) => `${req.method} ${(req as WithFields)[FIELDS]?.route ?? req.url} ${res.statusCode}`,
      // A 5xx without an error object: pino-http makes one up with its own stack; the error filter logs the real one.
      customErrorObject: (_req, _res, error, value: Record<string, unknown>) =>
        error.message.startsWith('failed with status code') ? { ...value, err: undefined } : value,
      customErrorMessage: (req, res) => `${req.method} ${(req as WithFields)[FIELDS]?.route ?? req.url} ${res.statusCode}`,
      serializers: {
        req: (req: { method: string; url: string; headers: Record<string, unknown>; remoteAddress?: string }) => ({
          method: req.method,
          url: req.url,
          headers: req.headers,
          remote_address: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
    },
  };
}

/** Nest's LoggerService over a pino logger: for logs written before the app exists (bootstrap, CLI). */
export function nestLogger(logger: Logger): LoggerService {
  const write = (level: Level, message: unknown, params: unknown[]) => {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
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

/** Replaces the process's root logger (tests capture lines with it). Returns the previous one. */
export function replaceRootLogger(logger: Logger | undefined): Logger | undefined {
  const previous = root;
  root = logger;
  return previous;
}
