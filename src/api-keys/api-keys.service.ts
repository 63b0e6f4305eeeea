import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';

import { generateApiKey, hashApiKey } from '../common/auth/api-key';
import { ApiKeyCache } from '../common/auth/api-key.cache';
import type { Caller } from '../common/auth/auth-context';
import { UNAUTHORIZED } from '../common/auth/authenticated.decorator';
import { dbOf } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { validateBody } from '../common/validation/validate-body';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-keys.dto';
import { ApiKeysRepository, MAX_ACTIVE_KEYS } from './api-keys.repository';

/** D46's answers at D3 step 9 and for a missing key. */
export const API_KEY_ERRORS = {
  scope: (scope: string) => `A key cannot grant a scope it does not have: ${scope}`,
  expiry: "expires_at cannot be later than this key's expiry",
  cap: `A user can hold at most ${MAX_ACTIVE_KEYS} active API keys`,
  notFound: 'API key not found',
} as const;

/** Rules for API keys through the API (D46): any key manages its own user's keys. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly cache: ApiKeyCache,
    private readonly sql: Sql,
  ) {}

  /**
   * D46 create: 400 body (name, scopes, expires_at); then 403 for the first scope (ascending) the
   * calling key lacks, 400 an expiry later than the calling key's, 409 over 100 active keys
   * (held per user under concurrency). 201 with the plain key, shown only here.
   */
  async createKey(caller: Caller, rawBody: unknown): Promise<CreatedApiKeyDto> {
    const body = await validateBody(CreateApiKeyDto, rawBody);
    const missing = body.scopes.find((scope) => !caller.scopes.includes(scope));
    if (missing) throw new ForbiddenException(API_KEY_ERRORS.scope(missing));
    const plain = generateApiKey();
    const result = await this.keys.create(
      caller.userId,
      caller.keyId,
      { hash: hashApiKey(plain), last4: plain.slice(-4), name: body.name, scopes: body.scopes, expiresAt: body.expires_at },
      dbOf(caller, this.sql),
    );
    // The calling key was revoked while this request ran.
    if (result.too_late === null) throw new UnauthorizedException(UNAUTHORIZED.invalid);
    if (result.too_late) throw new BadRequestException(API_KEY_ERRORS.expiry);
    if (!result.key) throw new ConflictException(API_KEY_ERRORS.cap);
    return { ...result.key, key: plain };
  }

  /** D46 list: the caller's unrevoked keys, expired ones included, by id. */
  listKeys(caller: Caller): Promise<ApiKeyDto[]> {
    return this.keys.list(caller.userId, dbOf(caller, this.sql));
  }

  /**
   * D46 revoke: 404 `API key not found` for another user's key, a revoked one or none. The key stops
   * working for every later request of every process: the answer waits (at most a second) until every
   * process listening for key changes has acknowledged the revoke's notification.
   */
  async revokeKey(caller: Caller, id: number): Promise<void> {
    const hash = await this.keys.revoke(caller.userId, id, dbOf(caller, this.sql));
    if (!hash) throw new NotFoundException(API_KEY_ERRORS.notFound);
    await this.cache.everyProcessHeard(hash);
  }
}
