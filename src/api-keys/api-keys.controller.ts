import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated, IgnoresIdempotencyKey } from '../common/auth/authenticated.decorator';
import { SCOPES } from '../common/auth/scope';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-keys.dto';
import { API_KEY_ERRORS, ApiKeysService } from './api-keys.service';

/** HTTP for API keys (D46): create, list, revoke; each key acts for its own user. */
@ApiTags('API keys')
@Controller('api/v1/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** D46: create API key. */
  @Post()
  @Authenticated('api_keys:write')
  @IgnoresIdempotencyKey()
  @ApiOperation({
    summary: 'Create API key',
    description:
      "A new key for the key user, with a subset of the calling key's scopes and an expiry no later than its own (left out: the same expiry). " +
      'The plain key is in this answer only; it is never stored, so `Idempotency-Key` is ignored here. A user holds at most 100 active keys.',
  })
  @ApiValidatedBody(CreateApiKeyDto)
  @ApiErrors({ 400: [API_KEY_ERRORS.expiry], 403: SCOPES.map(API_KEY_ERRORS.scope), 409: [API_KEY_ERRORS.cap] })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  createApiKey(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<CreatedApiKeyDto> {
    return this.keys.createKey(caller, body);
  }

  /** D46: list API keys. */
  @Get()
  @Authenticated('api_keys:read')
  @ApiOperation({ summary: 'List API keys', description: "The key user's keys that are not revoked, expired ones included, by id." })
  @ApiOkResponse({ type: [ApiKeyDto] })
  listApiKeys(@CurrentCaller() caller: Caller): Promise<ApiKeyDto[]> {
    return this.keys.listKeys(caller);
  }

  /** D46: revoke API key. */
  @Delete(':api_key_id')
  @HttpCode(204)
  @Authenticated('api_keys:write')
  @ApiOperation({
    summary: 'Revoke API key',
    description: "Revokes one of the key user's keys (the calling key included); it stops working at once, in every server process.",
  })
  @ApiErrors({ 404: [API_KEY_ERRORS.notFound] })
  @ApiNoContentResponse({ description: 'Revoked; empty body' })
  async deleteApiKey(@CurrentCaller() caller: Caller, @PathId('api_key') id: number): Promise<void> {
    await this.keys.revokeKey(caller, id);
  }
}
