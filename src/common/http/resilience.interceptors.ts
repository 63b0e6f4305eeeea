import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, retry, throwError, timer } from 'rxjs';
import { isLostRace } from '../database/pg-errors';

/**
 * Issue 8: a write racing a delete (a task created in a list being deleted, a
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
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(retry({ count: 1, delay: (error: unknown) => (isLostRace(error) ? timer(0) : throwError(() => error)) }));
  }
}
