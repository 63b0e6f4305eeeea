import type { FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

import { POOLER_PREPARED_HINT } from '../database/pg-errors';
import { createRootLogger, replaceRootLogger } from '../logging/logger';
import { sendError } from './error.filter';

/** A reply that records what is sent. */
function fakeReply(): FastifyReply & { recorded: { status?: number; body?: unknown } } {
  const recorded: { status?: number; body?: unknown } = {};
  const reply = {
    recorded,
    sent: false,
    raw: { destroyed: false, socket: { destroyed: false } },
    header: () => reply,
    status: (status: number) => ((recorded.status = status), reply),
    send: (body: unknown) => ((recorded.body = body), reply),
  };
  return reply as unknown as FastifyReply & { recorded: typeof recorded };
}

function pgError(code: string, message: string): DatabaseError {
  const error = new DatabaseError(message, 100, 'error');
  error.code = code;
  return error;
}

describe('sendError: a pooler that cannot keep prepared statements', () => {
  it('answers 500 and logs each error, and the hint to set DB_PREPARED_STATEMENTS=false once per process', () => {
    const lines: Array<{ level: string; msg: string; request_id?: string }> = [];
    const previous = replaceRootLogger(createRootLogger({ logLevel: 'info', logFormat: 'json' }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
    try {
      const request = { id: 'req-1', url: '/api/v1/tasks/1' } as FastifyRequest;
      const send = (error: unknown) => {
        const reply = fakeReply();
        sendError(reply, error, request);
        return reply.recorded;
      };
      const messages = () => lines.map((l) => `${l.level} ${l.msg}`);
      expect(send(new Error('boom'))).toEqual({ status: 500, body: { error: 'Internal server error' } });
      expect(messages()).toEqual(['error boom']);

      const duplicate = new QueryFailedError('SELECT $1', [1], pgError('42P05', 'prepared statement "q_abc" already exists'));
      const missing = pgError('26000', 'prepared statement "q_abc" does not exist');
      lines.length = 0;
      for (const error of [duplicate, missing, duplicate]) expect(send(error)).toEqual({ status: 500, body: { error: 'Internal server error' } });
      expect(messages()).toEqual([`error ${POOLER_PREPARED_HINT}`, `error ${duplicate.message}`, `error ${missing.message}`, `error ${duplicate.message}`]);
      expect(lines.every((l) => l.request_id === 'req-1')).toBe(true);
      expect(POOLER_PREPARED_HINT).toContain('set DB_PREPARED_STATEMENTS=false');
    } finally {
      replaceRootLogger(previous);
    }
  });
});
