import type { Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { POOLER_PREPARED_HINT } from '../database/pg-errors';
import { sendError } from './error.filter';

/** A reply that records what is sent. */
function fakeReply(): FastifyReply & { sent: { status?: number; body?: unknown } } {
  const sent: { status?: number; body?: unknown } = {};
  const reply = {
    sent,
    raw: { destroyed: false, socket: { destroyed: false } },
    header: () => reply,
    status: (status: number) => ((sent.status = status), reply),
    send: (body: unknown) => ((sent.body = body), reply),
  };
  return reply as unknown as FastifyReply & { sent: typeof sent };
}

function pgError(code: string, message: string): DatabaseError {
  const error = new DatabaseError(message, 100, 'error');
  error.code = code;
  return error;
}

describe('sendError: a pooler that cannot keep prepared statements (issue 16)', () => {
  it('answers 500 and logs each error, and the hint to set DB_PREPARED_STATEMENTS=false once per process', () => {
    const logger = { error: jest.fn(), warn: jest.fn() };
    const send = (error: unknown) => {
      const reply = fakeReply();
      sendError(reply, error, logger as unknown as Logger);
      return reply.sent;
    };
    const other = new Error('boom');
    expect(send(other)).toEqual({ status: 500, body: { error: 'Internal server error' } });
    expect(logger.error.mock.calls).toEqual([[other]]);

    const duplicate = new QueryFailedError('SELECT $1', [1], pgError('42P05', 'prepared statement "q_abc" already exists'));
    const missing = pgError('26000', 'prepared statement "q_abc" does not exist');
    logger.error.mockClear();
    for (const error of [duplicate, missing, duplicate]) expect(send(error)).toEqual({ status: 500, body: { error: 'Internal server error' } });
    expect(logger.error.mock.calls).toEqual([[POOLER_PREPARED_HINT], [duplicate], [missing], [duplicate]]);
    expect(POOLER_PREPARED_HINT).toContain('set DB_PREPARED_STATEMENTS=false');
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
