import { lookup } from 'dns/promises';
import http from 'http';
import https from 'https';
import type { LookupFunction } from 'net';
import { Webhook } from 'standardwebhooks';

import { hostAddress, isPublicAddress } from './webhook-url';
import type { DeliveryResult } from './webhooks.dto';

/** One POST of an event to a webhook URL. */
export interface Attempt {
  url: string;
  /** `whsec_...` */
  secret: string;
  /** `evt_<event id>`, the same on every attempt. */
  messageId: string;
  /** The JSON body, as sent. */
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the attempt (server shutdown): the promise rejects, nothing counts as sent. */
  signal: AbortSignal;
  /**
   * Called once connected, before a byte is sent: calls `send` if the attempt
   * may still go, and resolves whether it did. A rejection rejects the attempt.
   */
  beforeSend: (send: () => void) => Promise<boolean>;
}

/** How an attempt ended (D38). */
export interface AttemptOutcome {
  result: DeliveryResult;
  responseStatus: number | null;
  durationMs: number;
  /** When it started. */
  startedAt: Date;
}

/**
 * D38: the Standard Webhooks headers of a delivery at `at`: `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256>`, signed by the `standardwebhooks` package).
 */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

/** A `lookup` that answers every query with `address`: the connection goes to the address that was checked. */
function fixedLookup(address: string, family: number): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

class AttemptTimeout extends Error {}

/**
 * D38: makes one delivery attempt. The host is resolved now; when any of its
 * addresses is not public (and that is not allowed) the attempt is `blocked`
 * without connecting. Otherwise it connects to the first resolved address,
 * exactly the one checked (a custom lookup: no second resolution), and POSTs
 * the body with the signed headers, once `beforeSend` lets it (null when it
 * does not: nothing was sent). A 2xx answer is `delivered`, another status
 * (redirects included: never followed) `failed` with that status, no answer
 * within `timeoutMs` (resolution included) `timeout`, no connection or no
 * resolution `failed` without status. Rejects when `signal` aborts or
 * `beforeSend` rejects.
 */
export async function attemptDelivery(attempt: Attempt): Promise<AttemptOutcome | null> {
  const startedAt = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(attempt.url);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout()), attempt.timeoutMs);
  });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(attempt.signal.reason);
    if (attempt.signal.aborted) onAbort();
    else attempt.signal.addEventListener('abort', onAbort, { once: true });
  });
  deadline.catch(() => undefined);
  aborted.catch(() => undefined);
  let request: http.ClientRequest | undefined;
  const outcome = (result: DeliveryResult, responseStatus: number | null = null): AttemptOutcome => ({
    result,
    responseStatus,
    durationMs: result === 'blocked' ? 0 : elapsed(),
    startedAt,
  });
  try {
    const literal = hostAddress(url.hostname);
    let addresses: { address: string; family: number }[];
    try {
      addresses = literal
        ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
        : await Promise.race([lookup(url.hostname, { all: true, verbatim: true }), deadline, aborted]);
    } catch (error) {
      if (error instanceof AttemptTimeout || attempt.signal.aborted) throw error;
      return outcome('failed');
    }
    if (addresses.length === 0) return outcome('failed');
    if (!attempt.allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return outcome('blocked');
    const { address, family } = addresses[0];
    const status = await Promise.race([
      new Promise<number | null | 'cancelled'>((resolve, reject) => {
        const send = url.protocol === 'https:' ? https.request : http.request;
        const req = send(url, {
          method: 'POST',
          headers: { ...signedHeaders(attempt.secret, attempt.messageId, startedAt, attempt.body), 'content-length': String(Buffer.byteLength(attempt.body)) },
          lookup: fixedLookup(address, family),
          agent: false,
        });
        request = req;
        req.on('response', (response) => {
          resolve(response.statusCode ?? null);
          response.destroy();
        });
        req.on('error', () => resolve(null));
        // Nothing is written before end(): connect first, then ask whether the attempt may still go.
        req.once('socket', (socket) => {
          socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
            attempt.beforeSend(() => req.end(attempt.body)).then((sent) => sent || resolve('cancelled'), reject);
          });
        });
      }),
      deadline,
      aborted,
    ]);
    if (status === 'cancelled') return null;
    if (status === null) return outcome('failed');
    return outcome(status >= 200 && status < 300 ? 'delivered' : 'failed', status);
  } catch (error) {
    if (error instanceof AttemptTimeout) return outcome('timeout');
    throw error;
  } finally {
    clearTimeout(timer);
    attempt.signal.removeEventListener('abort', onAbort!);
    request?.destroy();
  }
}
