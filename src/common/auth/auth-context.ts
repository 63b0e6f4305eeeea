import { createParamDecorator, ExecutionContext } from '@nestjs/common';

import type { Db } from '../database/request-db';
import type { Scope } from './scope';

/** Who is calling: the API key's owner and the key's scopes (spec: Authentication 4). */
export interface Caller {
  userId: number;
  keyId: number;
  scopes: readonly Scope[];
  /** The workspace the request acts in, once the access check has found it (the request's log line shows it). */
  workspaceId?: number;
  /**
   * Where this request's statements run: on write routes, the request's own connection
   * (RequestDb, set by WriteRequestInterceptor: one transaction with an Idempotency-Key,
   * and stopped by the deadline); unset on reads (the pool).
   */
  db?: Db;
}

/** Request property the guard stores the caller under. */
export const CALLER_KEY = 'caller';

/** Route parameter decorator: the authenticated Caller the guard resolved. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const request = ctx.switchToHttp().getRequest<Record<string, unknown>>();
  return request[CALLER_KEY] as Caller;
});
