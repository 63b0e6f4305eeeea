import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

/** Every error body (spec: Errors; D31). */
export class ErrorDto {
  @ApiProperty({ example: 'Task not found' }) error: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'API key missing, lacking the prefix, unrecognised, or expired',
  403: 'Missing scope, or the workspace role or access restriction does not permit the action',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body is too large',
  415: 'Content-Type must be application/json',
};

/**
 * Documents the error answers of a route: `ApiErrors({ 400: ['title is required', ...], 404: ['Task not found'] })`.
 * Each status gets the `{ error }` schema with the first message as its example and all listed messages in the description.
 */
export function ApiErrors(errors: Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 415, string[]>>) {
  return applyDecorators(
    ...Object.entries(errors).map(([status, messages]) =>
      ApiResponse({
        status: Number(status),
        description: messages && messages.length ? messages.map((m) => '`' + m + '`').join(', ') : DESCRIPTIONS[Number(status)],
        type: ErrorDto,
        example: messages && messages.length ? { error: messages[0] } : undefined,
      }),
    ),
  );
}
