import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { errorCodes } from 'fastify';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

import { toHttpError } from './to-http-error';

const INTERNAL = { status: 500, message: 'Internal server error' };

/** A PostgreSQL error as the pg driver raises it. */
function pgError(code: string, constraint?: string): DatabaseError {
  const error = new DatabaseError('duplicate key value violates unique constraint', 100, 'error');
  error.code = code;
  error.constraint = constraint;
  error.detail = 'Key (workspace_id, lower(name))=(1, bug) already exists.';
  return error;
}

describe('toHttpError (D31)', () => {
  describe('Nest HTTP exceptions keep their status and message', () => {
    it.each([
      [new BadRequestException('title is required'), 400, 'title is required'],
      [new UnauthorizedException('API key required'), 401, 'API key required'],
      [new ForbiddenException("Scope 'tasks:read' is required for this endpoint"), 403, "Scope 'tasks:read' is required for this endpoint"],
      [new NotFoundException('Task not found'), 404, 'Task not found'],
      [new ConflictException('A status with this name already exists'), 409, 'A status with this name already exists'],
      [new PayloadTooLargeException('Request body is too large'), 413, 'Request body is too large'],
      [new UnsupportedMediaTypeException('Content-Type must be application/json'), 415, 'Content-Type must be application/json'],
      [new HttpException('I am a teapot', 418), 418, 'I am a teapot'],
      [new HttpException({ message: 'from an object' }, 400), 400, 'from an object'],
      // class-validator style: the first message.
      [new HttpException({ message: ['first', 'second'], error: 'Bad Request' }, 400), 400, 'first'],
    ])('%p', (error, status, message) => {
      expect(toHttpError(error)).toEqual({ status, message });
    });

    it.each([
      ['GET', '/nope'],
      ['POST', '/api/v1/unknown?x=1'],
      ['DELETE', '/api/v1/tasks'],
    ])("turns the router's `Cannot %s %s` into 404 `Not found` (D3 step 1)", (method, url) => {
      expect(toHttpError(new NotFoundException(`Cannot ${method} ${url}`))).toEqual({ status: 404, message: 'Not found' });
    });

    it('keeps a 404 message that merely mentions "Cannot"', () => {
      expect(toHttpError(new NotFoundException('Cannot find it'))).toEqual({ status: 404, message: 'Cannot find it' });
    });

    it('never shows the text of a 500 HttpException', () => {
      expect(toHttpError(new InternalServerErrorException('connection to postgres://user:secret@db failed'))).toEqual(INTERNAL);
      expect(toHttpError(new InternalServerErrorException())).toEqual(INTERNAL);
    });
  });

  describe('Fastify errors get the answers of D7', () => {
    it.each([
      [new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), 400, 'Invalid JSON body'],
      [new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), 400, 'Invalid JSON body'],
      [new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), 413, 'Request body is too large'],
      [new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('text/plain'), 415, 'Content-Type must be application/json'],
      [new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), 400, 'Invalid Content-Length'],
    ])('%p', (error, status, message) => {
      expect(toHttpError(error)).toEqual({ status, message });
    });

    it('answers another Fastify client error with its status and a neutral message', () => {
      expect(toHttpError(Object.assign(new Error('FST internals'), { code: 'FST_ERR_SOMETHING', statusCode: 400 }))).toEqual({
        status: 400,
        message: 'Bad request',
      });
    });

    it('answers a Fastify server error as 500', () => {
      expect(toHttpError(Object.assign(new Error('boom'), { code: 'FST_ERR_SOMETHING', statusCode: 500 }))).toEqual(INTERNAL);
      expect(toHttpError(new errorCodes.FST_ERR_CTP_INVALID_HANDLER())).toEqual(INTERNAL);
    });
  });

  describe('PostgreSQL unique violations map by constraint name (D25, D28)', () => {
    it.each([
      ['statuses_workspace_name_key', 'A status with this name already exists'],
      ['labels_workspace_name_key', 'A label with this name already exists'],
    ])('%s: from the pg driver and wrapped by TypeORM', (constraint, message) => {
      expect(toHttpError(pgError('23505', constraint))).toEqual({ status: 409, message });
      expect(toHttpError(new QueryFailedError('INSERT ...', [], pgError('23505', constraint)))).toEqual({ status: 409, message });
    });

    it.each([
      ['another unique constraint', pgError('23505', 'users_email_key')],
      ['a unique violation without constraint', pgError('23505')],
      ['an undefined table', pgError('42P01')],
      ['a TypeORM-wrapped undefined table', new QueryFailedError('SELECT * FROM nope', [], pgError('42P01'))],
    ])('answers %s as 500', (_case, error) => {
      expect(toHttpError(error)).toEqual(INTERNAL);
    });
  });

  describe('a race lost again after the retry is 503 `Service unavailable`, whatever the foreign key (no constraint names)', () => {
    it.each([
      ['a mapped-looking name', 'tasks_list_id_fkey'],
      ['a foreign key added after this test was written', 'task_reminders_task_id_fkey'],
      ['no constraint name at all', undefined],
    ])('23503 with %s', (_case, constraint) => {
      expect(toHttpError(pgError('23503', constraint))).toEqual({ status: 503, message: 'Service unavailable' });
      expect(toHttpError(new QueryFailedError('INSERT ...', [], pgError('23503', constraint)))).toEqual({ status: 503, message: 'Service unavailable' });
    });
  });

  describe('an unreachable or overloaded database is 503 `Service unavailable`', () => {
    const UNAVAILABLE = { status: 503, message: 'Service unavailable' };
    const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
    it.each([
      ['admin shutdown', pgError('57P01')],
      ['the database starting up', pgError('57P03')],
      ['statement timeout', new QueryFailedError('SELECT 1', [], pgError('57014'))],
      ['too many connections', pgError('53300')],
      ['a connection exception', pgError('08006')],
      ['a deadlock after the retry', pgError('40P01')],
      ['a serialization failure after the retry', pgError('40001')],
      ['connection refused', socketError('ECONNREFUSED')],
      ['connection reset, wrapped', new QueryFailedError('SELECT 1', [], socketError('ECONNRESET'))],
      ['a lost connection', new Error('Connection terminated unexpectedly')],
      ['a connect timeout', new Error('Connection terminated due to connection timeout')],
      ['a pool wait timeout', new Error('timeout exceeded when trying to connect')],
      ['a client read timeout', new QueryFailedError('SELECT 1', [], new Error('Query read timeout'))],
      ['the request deadline', new ServiceUnavailableException()],
    ])('%s', (_case, error) => {
      expect(toHttpError(error)).toEqual(UNAVAILABLE);
    });
  });

  describe('router errors before any route (D31)', () => {
    it('bad percent-encoding is 400, an over-long path parameter 414', () => {
      expect(toHttpError(new errorCodes.FST_ERR_BAD_URL('/api/v1/tasks/%E0%A4%A'))).toEqual({ status: 400, message: 'Malformed URL' });
      expect(toHttpError(new errorCodes.FST_ERR_MAX_PARAM_LENGTH('/api/v1/tasks/1'))).toEqual({ status: 414, message: 'URI too long' });
    });
  });

  describe('anything else is 500 `Internal server error`, revealing nothing', () => {
    it.each([
      ['an Error', new Error('SELECT password FROM users')],
      ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
      ['a string', 'oops'],
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['a plain object', { message: 'secret' }],
      ['an object with a non-Fastify code', { code: 'ECONNREFUSED', statusCode: 400 }],
      // Named statements behind a pooler that cannot keep them (error.filter also logs a hint, once).
      ['a prepared statement already on the connection (42P05)', lostPrepared('42P05', 'prepared statement "q_abc" already exists')],
      ['a prepared statement missing from the connection (26000)', lostPrepared('26000', 'prepared statement "q_abc" does not exist')],
      ['the same wrapped by TypeORM', new QueryFailedError('SELECT $1', [1], lostPrepared('26000', 'prepared statement "q_abc" does not exist'))],
    ])('%s', (_case, error) => {
      expect(toHttpError(error)).toEqual(INTERNAL);
    });
  });
});

/** A PostgreSQL error about a named prepared statement, as pg raises it. */
function lostPrepared(code: string, message: string): DatabaseError {
  const error = new DatabaseError(message, 100, 'error');
  error.code = code;
  return error;
}
