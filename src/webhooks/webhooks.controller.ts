import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { VARIABLES } from '../config/env';
import { CreatedWebhookDto, CreateWebhookDto, UpdateWebhookDto, WebhookDeliveryDto, WebhookDto } from './webhooks.dto';
import { webhookLimitMessage, WebhooksService } from './webhooks.service';

/** HTTP for webhooks (D38): create, list, update, delete, deliveries. */
@ApiTags('Webhooks')
@Controller('api/v1')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** D38: create webhook. */
  @Post('webhooks')
  @Authenticated('webhooks:write', 'webhook.create')
  @ApiOperation({
    summary: 'Create webhook',
    description:
      "Subscribes a URL to the workspace's events; it starts active. The answer carries the signing `secret`, which no other answer shows. " +
      'Each event of a subscribed type is then POSTed to the URL as JSON with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried on failure.',
  })
  @ApiValidatedBody(CreateWebhookDto)
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiErrors({
    // The default WEBHOOKS_PER_WORKSPACE_MAX; the answer names the setting's value.
    409: [webhookLimitMessage(Number(VARIABLES.WEBHOOKS_PER_WORKSPACE_MAX.default))],
  })
  createWebhook(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<CreatedWebhookDto> {
    return this.webhooks.createWebhook(caller, body);
  }

  /** D38: list webhooks. */
  @Get('workspaces/:workspace_id/webhooks')
  @Authenticated('webhooks:read', 'webhook.list')
  @ApiOperation({ summary: 'List webhooks', description: "The workspace's webhooks, by id (without secrets)." })
  @ApiOkResponse({ type: [WebhookDto] })
  listWebhooks(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<WebhookDto[]> {
    return this.webhooks.listWebhooks(caller, id);
  }

  /** D38: update webhook. */
  @Patch('webhooks/:webhook_id')
  @Authenticated('webhooks:write', 'webhook.manage')
  @ApiOperation({
    summary: 'Update webhook',
    description:
      'Only the fields sent change. While inactive nothing is delivered, and attempts that fall due meanwhile are dropped; after re-activation only newer events are delivered. ' +
      'A new URL applies to every later attempt.',
  })
  @ApiValidatedBody(UpdateWebhookDto)
  @ApiOkResponse({ type: WebhookDto })
  updateWebhook(@CurrentCaller() caller: Caller, @PathId('webhook') id: number, @Body() body: unknown): Promise<WebhookDto> {
    return this.webhooks.updateWebhook(caller, id, body);
  }

  /** D38: delete webhook. */
  @Delete('webhooks/:webhook_id')
  @HttpCode(204)
  @Authenticated('webhooks:write', 'webhook.manage')
  @ApiOperation({ summary: 'Delete webhook', description: 'Permanent, with its delivery log; no delivery attempt starts after the answer.' })
  @ApiNoContentResponse()
  async deleteWebhook(@CurrentCaller() caller: Caller, @PathId('webhook') id: number): Promise<void> {
    await this.webhooks.deleteWebhook(caller, id);
  }

  /** D38: list deliveries. */
  @Get('webhooks/:webhook_id/deliveries')
  @Authenticated('webhooks:read', 'webhook.manage')
  @ApiOperation({
    summary: 'List webhook deliveries',
    description: "The webhook's 100 most recent finished delivery attempts, over all its events, newest first (by `attempted_at`, then `id`).",
  })
  @ApiOkResponse({ type: [WebhookDeliveryDto] })
  listWebhookDeliveries(@CurrentCaller() caller: Caller, @PathId('webhook') id: number): Promise<WebhookDeliveryDto[]> {
    return this.webhooks.listDeliveries(caller, id);
  }
}
