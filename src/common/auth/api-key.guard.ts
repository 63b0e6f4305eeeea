import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { WriteRequests } from '../http/write-request';
import { checkIdempotencyKey } from '../idempotency/idempotency-key';
import { deferredBodyError } from '../validation/body-error';
import { ApiKeyCache } from './api-key.cache';
import { Caller, CALLER_KEY } from './auth-context';
import { BODY_ERROR_RULE_KEY, BodyErrorRule, IGNORES_IDEMPOTENCY_KEY, PUBLIC_KEY, SCOPE_KEY, scopeRequired, UNAUTHORIZED } from './authenticated.decorator';
import { LastUsedRecorder } from './last-used';
import type { Scope } from './scope';

/** What the guard reads of a route handler's decorators, once per handler. */
interface RouteRule {
  /** `public`, the scope the route needs, or undefined when it declares neither. */
  access: 'public' | Scope | undefined;
  /** The scope is a `:write` one (the route runs as a write request: WriteRequests). */
  writes: boolean;
  /** D46: the route ignores the Idempotency-Key header (IgnoresIdempotencyKey). */
  ignoresKey: boolean;
  /** Where a body error found while parsing is answered (BodyErrors). */
  bodyErrors: BodyErrorRule;
}

/**
 * Global guard, closed by default: authentication (D20) then scope (D21),
 * steps 2 and 3 of D3, then the Idempotency-Key format of a POST (D35), then any body error the parser kept (D7). A route with neither `@Authenticated` nor `@Public`
 * is refused (500), and a test fails on it.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  /** Each route handler's rule, read from its decorators on its first request. */
  private readonly rules = new WeakMap<object, RouteRule>();

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyCache,
    private readonly lastUsed: LastUsedRecorder,
    private readonly writes: WriteRequests,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let rule = this.rules.get(handler);
    if (!rule) this.rules.set(handler, (rule = this.ruleOf(handler, context.getClass())));
    const scope = rule.access;
    if (scope === 'public') return this.bodyChecked(context);
    if (!scope) throw new Error(`Route ${context.getClass().name}.${handler.name} declares no authentication`);

    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> } & Record<string, unknown>>();
    const key = await this.keys.forRequest(request);
    if (!key) throw new UnauthorizedException(UNAUTHORIZED.missing);
    const { stored } = key;
    if (!stored || stored.revoked) throw new UnauthorizedException(UNAUTHORIZED.invalid);
    if (stored.expired) throw new UnauthorizedException(UNAUTHORIZED.expired);
    if (!stored.scopes.includes(scope)) throw new ForbiddenException(scopeRequired(scope));

    const caller: Caller = { userId: stored.user_id, keyId: stored.id, scopes: stored.scopes };
    request[CALLER_KEY] = caller;
    this.lastUsed.record(stored.id);
    // D46: create API key ignores Idempotency-Key (not checked, not stored).
    const idempotencyKey = rule.ignoresKey ? undefined : checkIdempotencyKey(request as never);
    if (rule.writes) this.writes.open(caller, request as never, context.switchToHttp().getResponse(), idempotencyKey);
    if (rule.bodyErrors === 'none') return true;
    // D35: a keyed write's body error is answered by WriteRequests (write scopes), after a replay had its chance.
    if (idempotencyKey !== undefined && rule.writes) return true;
    if (rule.bodyErrors === 'route') return true;
    return this.bodyChecked(context);
  }

  /** The rule of a route handler and its controller, from their decorators. */
  private ruleOf(handler: object, controller: object): RouteRule {
    const method = handler as () => void;
    const targets = [method, controller as () => void];
    const access = this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)
      ? 'public'
      : this.reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, targets);
    return {
      access,
      writes: access !== undefined && access.endsWith(':write'),
      ignoresKey: this.reflector.get<boolean>(IGNORES_IDEMPOTENCY_KEY, method) === true,
      bodyErrors: this.reflector.get<BodyErrorRule | undefined>(BODY_ERROR_RULE_KEY, method) ?? 'guard',
    };
  }

  /** D7 body errors found while parsing, answered only now: after authentication and scope (D3). */
  private bodyChecked(context: ExecutionContext): true {
    const error = deferredBodyError(context.switchToHttp().getRequest<object>());
    if (error) throw error;
    return true;
  }
}
