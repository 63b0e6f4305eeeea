import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { from, Observable, retry, throwError } from 'rxjs';

import { type Caller, CALLER_KEY } from '../auth/auth-context';
import { isLostRace } from '../database/pg-errors';
import { RequestDb } from '../database/request-db';

/**
 * A write racing a delete (a task created in a list being deleted, a
 * comment on a task being deleted, ...) fails in PostgreSQL with a foreign-key
 * violation, a serialization failure or a deadlock, and its transaction is
 * rolled back. The whole operation, access check included, runs once more:
 * it then sees the delete and answers what it would have, had the delete
 * committed first (the contract's 404), or succeeds. Nest defers the handler,
 * so re-subscribing runs it again. Writes are one transaction or one statement,
 * so a failed attempt left nothing behind.
 */
@Injectable()
export class RetryLostRaceInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const caller = context.switchToHttp().getRequest<Record<string, Caller | undefined>>()[CALLER_KEY];
    // A request running in one transaction (Idempotency-Key) begins a new one for its second run.
    const again = () => from(caller?.db instanceof RequestDb ? caller.db.restart() : Promise.resolve());
    return next.handle().pipe(retry({ count: 1, delay: (error: unknown) => (isLostRace(error) ? again() : throwError(() => error)) }));
  }
}
