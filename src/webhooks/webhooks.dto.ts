import { BadRequestException } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { ParentId, RuleField } from '../common/validation/body-fields';
import { EVENT_TYPES, EventType } from '../events/event-types';
import { PRIVATE_MESSAGE, URL_MESSAGE } from './webhook-url';

/** D38: the 400 of a bad `events`. */
export const EVENTS_MESSAGE = 'events must be a non-empty array of event types';
/** D38: the 400 of a bad `active`. */
export const ACTIVE_MESSAGE = 'active must be a boolean';
/** D38: results of a delivery attempt. */
export const DELIVERY_RESULTS = ['delivered', 'failed', 'timeout', 'blocked'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/**
 * D38: `events` as stored: the subscribed types without duplicates in the
 * contract's table order; undefined when not sent. Throws 400 EVENTS_MESSAGE
 * for null, a non-array, an empty array or an unknown type.
 */
function eventTypes(value: unknown): EventType[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) throw new BadRequestException(EVENTS_MESSAGE);
  if (!value.every((type) => (EVENT_TYPES as readonly unknown[]).includes(type))) throw new BadRequestException(EVENTS_MESSAGE);
  return EVENT_TYPES.filter((type) => value.includes(type));
}

/** D38: `active`, a boolean; undefined when not sent. */
function activeFlag(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new BadRequestException(ACTIVE_MESSAGE);
  return value;
}

const URL_API: ApiPropertyOptions = {
  type: 'string',
  format: 'uri',
  maxLength: 2000,
  example: 'https://hooks.example.com/work-tracking',
  description:
    'An `https` URL (also `http` when the server allows it) without user name, password or fragment; stored as normalized by the WHATWG URL parser. ' +
    'A host that is a private, loopback or otherwise non-public IP address is refused unless the server allows it; host names are checked when each delivery is attempted.',
};

const EVENTS_API: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...EVENT_TYPES] },
  minItems: 1,
  example: ['task.created', 'task.updated'],
};

/**
 * The `url` field, documented and listed with its messages here. It is
 * checked by the service before the DTO (webhookUrl: its rules depend on the
 * server's settings), so this rule passes what it is given.
 */
const UrlField = (required: boolean) => RuleField({ name: 'url', api: { ...URL_API }, required, messages: [URL_MESSAGE, PRIVATE_MESSAGE] }, (value) => value);

/** D38: body of create webhook; after validation, the values as stored (`url`: see UrlField). */
export class CreateWebhookDto {
  @ParentId('workspace_id', 'Numeric id of the workspace')
  workspace_id: number;
  @UrlField(true) url: string;
  @RuleField(
    { name: 'events', api: { ...EVENTS_API, description: 'Event types to deliver; omitted: all of them' }, required: false, messages: [EVENTS_MESSAGE] },
    eventTypes,
  )
  events?: EventType[];
}

/** D38: body of update webhook; only sent fields change. */
export class UpdateWebhookDto {
  @UrlField(false) url?: string;
  @RuleField({ name: 'events', api: { ...EVENTS_API, description: 'Event types to deliver' }, required: false, messages: [EVENTS_MESSAGE] }, eventTypes)
  events?: EventType[];
  @RuleField(
    {
      name: 'active',
      api: { type: 'boolean', description: 'false: nothing is delivered, and events meanwhile are never delivered' },
      required: false,
      messages: [ACTIVE_MESSAGE],
    },
    activeFlag,
  )
  active?: boolean;
}

/** D38: a webhook. */
export class WebhookDto {
  @ApiInteger({ example: 6 }) id: number;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiProperty({ example: 'https://hooks.example.com/work-tracking' }) url: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] }, example: ['task.created'] }) events: EventType[];
  @ApiProperty({ example: true }) active: boolean;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** D38: the answer of create webhook: the webhook and its signing secret, shown only here. */
export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3vtoqHLoRWM=',
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: 'Signing secret: `whsec_` and the base64 of 32 random bytes. Shown only in this answer.',
  })
  secret: string;
}

/** D38: one finished delivery attempt. */
export class WebhookDeliveryDto {
  @ApiInteger({ example: 17 }) id: number;
  @ApiInteger({ example: 1042, description: 'The delivered event' }) event_id: number;
  @ApiInteger({ example: 1, minimum: 1, description: 'Attempt number for this event, from 1' }) attempt: number;
  @ApiProperty({ enum: DELIVERY_RESULTS }) result: DeliveryResult;
  @ApiInteger({ nullable: true, example: 200, description: 'HTTP status of the response; null without one' }) response_status: number | null;
  @ApiInteger({ example: 84, description: 'Milliseconds; 0 when blocked' }) duration_ms: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z', description: 'When the attempt started' }) attempted_at: string;
}
