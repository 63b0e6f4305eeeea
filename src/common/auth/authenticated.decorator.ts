import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';

import { accessAnswers, accessWording, Operation } from '../access/access.policy';
import { BODY_TOO_LARGE_MESSAGE } from '../errors/to-http-error';
import { WWW_AUTHENTICATE } from '../errors/www-authenticate';
import { WriteRoute } from '../http/write-request';
import { NO_IDEMPOTENCY_EXTENSION } from '../idempotency/idempotency-key';
import { ApiErrors, ErrorDto, errorExamples } from '../openapi/api-errors.decorator';
import type { Scope } from './scope';

export const SCOPE_KEY = 'auth:scope';
export const PUBLIC_KEY = 'auth:public';
export const IGNORES_IDEMPOTENCY_KEY = 'auth:ignores-idempotency-key';

/** OpenAPI extension carrying who may call an operation, in words; the document's post-processing moves it into the description. */
export const ACCESS_EXTENSION = 'x-access';

/** The guard's 401s, in the order it checks the key (D20). */
export const UNAUTHORIZED = { missing: 'API key required', invalid: 'Invalid API key', expired: 'API key has expired' };

/** The guard's 403 for a key without the route's scope (spec: Authentication 5). */
export const scopeRequired = (scope: Scope): string => `Scope '${scope}' is required for this endpoint`;

/** The header every 401 answer carries (RFC 9110: a 401 names its challenge). */
export const UNAUTHORIZED_HEADERS = {
  'WWW-Authenticate': {
    description: '`Bearer`: send the API key as `Authorization: Bearer <key>` (or as `X-API-Key`)',
    schema: { type: 'string' as const, const: WWW_AUTHENTICATE },
  },
};

/**
 * The route needs an API key carrying `scope` (spec: Authentication 5), and
 * its service checks the access-policy `operation` (POLICY in
 * common/access/access.policy.ts) on its target. One decorator states both for
 * the guard and the OpenAPI document alike: the scope, the guard's 401s and 403, and from the
 * policy table the 403 and 404 answers of the access check and who may call
 * the route. Routes without a target (the key's own user and workspaces) name no operation.
 * A route that needs a write scope is a write: its statements run on a connection
 * of its own, cut by the deadline, and a POST's in one transaction with its
 * Idempotency-Key (WriteRoute, D35), which also runs it once more when it loses a
 * race with a concurrent delete.
 */
export const Authenticated = (scope: Scope, operation?: Operation) =>
  applyDecorators(
    // First: the wrapper takes the metadata of the decorators below, and those after it land on the wrapper.
    ...(scope.endsWith(':write') ? [WriteRoute()] : []),
    SetMetadata(SCOPE_KEY, scope),
    ApiBearerAuth('bearer'),
    ApiSecurity('apiKey'),
    ApiExtension('x-scope', scope),
    ApiResponse({ status: 401, type: ErrorDto, examples: errorExamples(Object.values(UNAUTHORIZED)), headers: UNAUTHORIZED_HEADERS }),
    ApiExtension(ACCESS_EXTENSION, operation ? accessWording(operation) : 'any key'),
    ...(operation ? [ApiErrors(accessAnswers(operation))] : []),
    ApiErrors({ 403: [scopeRequired(scope)] }),
  );

/**
 * Who answers a route's D7 body errors (400 bad JSON and the like, 415); D7's 413 always comes first,
 * before authentication:
 * - `guard` (every route not marked): the guard at D3 step 3, or for a keyed write WriteRequests,
 *   after a replay had its chance (D35);
 * - `route`: the route itself, after its access checks, with deferredBodyError (D47's upload: step 7),
 *   or never (D47's confirm: its body is never parsed);
 * - `none`: the route reads no body (D43: label add and remove); the OpenAPI document shows none.
 */
export type BodyErrorRule = 'guard' | 'route' | 'none';

export const BODY_ERROR_RULE_KEY = 'auth:body-errors';

/** Marks a route whose body errors are not the guard's (see BodyErrorRule). */
export const BodyErrors = (rule: Exclude<BodyErrorRule, 'guard'>) =>
  rule === 'none'
    ? applyDecorators(SetMetadata(BODY_ERROR_RULE_KEY, rule), ApiErrors({ 413: [BODY_TOO_LARGE_MESSAGE] }))
    : SetMetadata(BODY_ERROR_RULE_KEY, rule);

/** The route needs no API key (health, OpenAPI document). Routes are closed unless marked. */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/**
 * D46: a POST route that ignores the Idempotency-Key header (not checked, not stored: create API
 * key, whose answer holds a plain key that must never be stored). The guard skips the header; the
 * OpenAPI document leaves it out.
 */
export const IgnoresIdempotencyKey = () => applyDecorators(SetMetadata(IGNORES_IDEMPOTENCY_KEY, true), ApiExtension(NO_IDEMPOTENCY_EXTENSION, true));
