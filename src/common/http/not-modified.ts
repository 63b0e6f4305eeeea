import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'stream';

const NOT_MODIFIED = Symbol('notModified');
type Marked = FastifyReply & { [NOT_MODIFIED]?: true };

/** D36: answer this request 304 Not Modified instead of the body the route returns (its ETag and other headers stay). */
export function markNotModified(reply: FastifyReply): void {
  (reply as Marked)[NOT_MODIFIED] = true;
}

/**
 * Fastify `onSend` hook: a reply marked by markNotModified goes out as 304
 * without body, Content-Type or Content-Length (D36). Others pass untouched.
 */
export function sendNotModified(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if ((reply as Marked)[NOT_MODIFIED] !== true || reply.statusCode !== 200) return done(null, payload);
  void reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  // HEAD: Fastify's own HEAD hook runs next and measures a payload; an empty stream it drains and drops (no Content-Length).
  done(null, request.method === 'HEAD' ? Readable.from([]) : null);
}
