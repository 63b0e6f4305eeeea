import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorDto } from '../openapi/api-errors.decorator';
import type { Scope } from './scope';

export const SCOPE_KEY = 'auth:scope';
export const PUBLIC_KEY = 'auth:public';

/**
 * The route needs an API key carrying `scope` (spec: Authentication 5). One
 * decorator states it for the guard and the OpenAPI document alike.
 */
export const Authenticated = (scope: Scope) =>
  applyDecorators(
    SetMetadata(SCOPE_KEY, scope),
    ApiBearerAuth('bearer'),
    ApiSecurity('apiKey'),
    ApiExtension('x-scope', scope),
    ApiResponse({ status: 401, type: ErrorDto, description: '`API key required`, `Invalid API key`, `API key has expired`', example: { error: 'API key required' } }),
  );

/** The route needs no API key (health, OpenAPI document). Routes are closed unless marked. */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
