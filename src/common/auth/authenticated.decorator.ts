import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { accessAnswers, accessWording, Operation } from '../access/access.policy';
import { ApiErrors, ErrorDto } from '../openapi/api-errors.decorator';
import { RetryLostRaceInterceptor } from '../http/resilience.interceptors';
import { WriteRequestInterceptor } from '../http/write-request.interceptor';
import type { Scope } from './scope';

export const SCOPE_KEY = 'auth:scope';
export const PUBLIC_KEY = 'auth:public';

/** OpenAPI extension carrying who may call an operation, in words; the document's post-processing moves it into the description. */
export const ACCESS_EXTENSION = 'x-access';

/**
 * The route needs an API key carrying `scope` (spec: Authentication 5), and
 * its service checks the access-policy `operation` (POLICY in
 * common/access/access.policy.ts) on its target. One decorator states both for
 * the guard and the OpenAPI document alike: the scope, the 401s, and from the
 * policy table the 403 and 404 answers of the access check and who may call
 * the route. Routes without a target (the key's own user and workspaces) name no operation.
 * A route that needs a write scope is a write: its statements run on a connection
 * of its own, cut by the deadline, and a POST's in one transaction with its
 * Idempotency-Key (WriteRequestInterceptor, D35); it runs once more when it loses a
 * race with a concurrent delete (RetryLostRaceInterceptor); reads carry no interceptor.
 */
export const Authenticated = (scope: Scope, operation?: Operation) =>
  applyDecorators(
    SetMetadata(SCOPE_KEY, scope),
    ApiBearerAuth('bearer'),
    ApiSecurity('apiKey'),
    ApiExtension('x-scope', scope),
    ApiResponse({ status: 401, type: ErrorDto, description: '`API key required`, `Invalid API key`, `API key has expired`', example: { error: 'API key required' } }),
    ApiExtension(ACCESS_EXTENSION, operation ? accessWording(operation) : 'any key'),
    ...(operation ? [ApiErrors(accessAnswers(operation))] : []),
    ...(scope.endsWith(':write') ? [UseInterceptors(WriteRequestInterceptor, RetryLostRaceInterceptor)] : []),
  );

/** The route needs no API key (health, OpenAPI document). Routes are closed unless marked. */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
