import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiProperty, ApiResponse } from '@nestjs/swagger';

import { bodyMessages } from '../validation/body-fields';

/** Every error body (spec: Errors; D31). Published as the `Error` schema. */
export class ErrorDto {
  @ApiProperty({ example: 'Task not found' }) error: string;
}

/** Statuses a route may document with ApiErrors. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 428;

/**
 * The named examples of an error response: one per message, keyed by the
 * message itself, each `{ error: message }`. Several decorators on one status
 * merge their examples (@nestjs/swagger merges `examples` maps), and the
 * document's post-processing (src/openapi) rebuilds the description from them.
 */
export function errorExamples(messages: string[]): Record<string, { summary: string; value: { error: string } }> {
  return Object.fromEntries(messages.map((m) => [m, { summary: m, value: { error: m } }]));
}

/**
 * Documents the error answers of a route: `ApiErrors({ 400: ['title is required', ...], 404: ['Task not found'] })`.
 * Each status gets the `{ error }` schema and one named example per message
 * (the post-processing lists them in the description). The guard's answers (401, 403 missing
 * scope) come with @Authenticated, and the generic ones (400 bad JSON, 413, 415
 * on routes with a body, 429, 500, 503) with the document's post-processing:
 * do not repeat them here.
 */
export function ApiErrors(errors: Partial<Record<ErrorStatus, string[]>>) {
  return applyDecorators(
    ...Object.entries(errors).map(([status, messages]) =>
      ApiResponse({
        status: Number(status),
        type: ErrorDto,
        examples: errorExamples(messages ?? []),
      }),
    ),
  );
}

/**
 * The request body of a route, declared once by its DTO (validation/body-fields.ts):
 * the OpenAPI request body schema and the 400 messages its fields can answer.
 */
export function ApiValidatedBody(dto: Type<unknown>) {
  return applyDecorators(ApiBody({ type: dto }), ApiErrors({ 400: bodyMessages(dto) }));
}
