import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'crypto';

import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { asBody } from '../common/validation/body';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { EVENT_TYPES } from '../events/event-types';
import { type UrlRules, webhookUrl } from './webhook-url';
import { CreatedWebhookDto, CreateWebhookDto, UpdateWebhookDto, WebhookDeliveryDto, WebhookDto } from './webhooks.dto';
import { WebhooksRepository } from './webhooks.repository';

/** D38: the 409 of a create when the workspace holds `max` webhooks (WEBHOOKS_PER_WORKSPACE_MAX). */
export function webhookLimitMessage(max: number): string {
  return `A workspace can have at most ${max} webhooks`;
}

/** D38: a new signing secret, `whsec_` + padded base64 of 32 random bytes (44 characters). */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/**
 * Rules for webhooks (D38), checks in D3's order: the target id, the target
 * and the caller's role (managers only), then the body: `url`, `events`,
 * `active`. Webhook writes record no events (D37).
 */
@Injectable()
export class WebhooksService {
  private readonly urlRules: UrlRules;
  private readonly perWorkspaceMax: number;

  constructor(
    private readonly access: AccessService,
    private readonly webhooks: WebhooksRepository,
    @InjectSettings() config: AppEnv,
  ) {
    const { allowHttp, allowPrivate } = config.webhooks;
    this.urlRules = { allowHttp, allowPrivate };
    this.perWorkspaceMax = config.webhooks.perWorkspaceMax;
  }

  /** D38: create webhook; 201 with the secret; 409 when the workspace already holds WEBHOOKS_PER_WORKSPACE_MAX. */
  async createWebhook(caller: Caller, rawBody: unknown): Promise<CreatedWebhookDto> {
    const create = await validateCreate(CreateWebhookDto, rawBody);
    const workspaceId = create.target.workspace_id;
    await this.access.workspace(caller, workspaceId, 'webhook.create');
    // url first (its rules depend on the settings, so it is checked here rather than by the DTO).
    const url = webhookUrl(asBody(rawBody).url, this.urlRules);
    const { events } = create.body();
    // D3 step 9: the workspace's cap (D38).
    const webhook = await this.webhooks.insert(workspaceId, url, events ?? [...EVENT_TYPES], newWebhookSecret(), this.perWorkspaceMax);
    if (!webhook) throw new ConflictException(webhookLimitMessage(this.perWorkspaceMax));
    return webhook;
  }

  /** D38: a workspace's webhooks by id. */
  async listWebhooks(caller: Caller, workspaceId: number): Promise<WebhookDto[]> {
    await this.access.workspace(caller, workspaceId, 'webhook.list');
    return this.webhooks.listByWorkspace(workspaceId);
  }

  /** D38: update webhook; only the fields sent change. */
  async updateWebhook(caller: Caller, id: number, rawBody: unknown): Promise<WebhookDto> {
    await this.access.check(caller, 'webhook.manage', id);
    const sent = asBody(rawBody).url;
    const url = sent === undefined ? undefined : webhookUrl(sent, this.urlRules);
    const { events, active } = await validateBody(UpdateWebhookDto, rawBody);
    const webhook = await this.webhooks.update(id, { url, events, active });
    if (!webhook) throw new NotFoundException(NOT_FOUND.webhook);
    return webhook;
  }

  /** D38: delete webhook; no attempt starts after this returns. */
  async deleteWebhook(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'webhook.manage', id);
    await this.webhooks.delete(id);
  }

  /** D38: the webhook's 100 most recent finished delivery attempts. */
  async listDeliveries(caller: Caller, id: number): Promise<WebhookDeliveryDto[]> {
    await this.access.check(caller, 'webhook.manage', id);
    return this.webhooks.listDeliveries(id);
  }
}
