import { BadRequestException } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

import { Scope, SCOPES } from '../common/auth/scope';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { checkText, requiredMessage, requiredTextMessages, tooLongMessage } from '../common/validation/body';
import { RuleField } from '../common/validation/body-fields';
import { DATE_EXAMPLE, DATE_PATTERN, formatTimestamp, invalidDateMessage, parseIsoDate } from '../common/validation/dates';
import { codePoints } from '../workspaces/workspace-fields';

/** D46's 400 messages of the create body. */
export const API_KEY_MESSAGES = {
  scopes: 'scopes must be a non-empty array of known scopes',
  expiresAt: invalidDateMessage('expires_at'),
  future: 'expires_at must be in the future',
} as const;

/** D46: the key object. */
export class ApiKeyDto {
  @ApiInteger({ example: 8 }) id: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'CI', description: 'null for keys made without a name' }) name: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '3f9c', description: "The key's last 4 characters; null for keys made before they were recorded" })
  last4: string | null;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] }, description: 'Ascending', example: ['tasks:read', 'tasks:write'] })
  scopes: string[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'null: never expires' }) expires_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The start of a recent request made with the key, at most 60 s stale' })
  last_used_at: string | null;
}

/** D46: Create API key's answer: the key object and the plain key, shown only here. */
export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ example: 'svc_3b1f…', description: 'The plain key: shown only in this answer, never stored' }) key: string;
}

/** D46: Create API key, request body; after validation, the values as stored (`expires_at` undefined: the calling key's expiry). */
export class CreateApiKeyDto {
  @RuleField(
    {
      name: 'name',
      api: { type: 'string', maxLength: 255, example: 'CI', description: 'Trimmed; blank is rejected' },
      required: true,
      messages: requiredTextMessages('name', 255),
    },
    (value) => {
      if (typeof value !== 'string' || value.trim() === '') throw new BadRequestException(requiredMessage('name'));
      const name = checkText('name', value).trim();
      if (codePoints(name) > 255) throw new BadRequestException(tooLongMessage('name', 255));
      return name;
    },
  )
  name: string;

  @RuleField(
    {
      name: 'scopes',
      api: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', enum: [...SCOPES] },
        description: "A subset of the calling key's scopes; duplicates collapse",
      },
      required: true,
      messages: [API_KEY_MESSAGES.scopes],
    },
    (value) => {
      if (!Array.isArray(value) || value.length === 0 || !value.every((s) => (SCOPES as readonly unknown[]).includes(s))) {
        throw new BadRequestException(API_KEY_MESSAGES.scopes);
      }
      return [...new Set(value as Scope[])].sort();
    },
  )
  scopes: Scope[];

  @RuleField(
    {
      name: 'expires_at',
      api: {
        type: 'string',
        nullable: true,
        pattern: DATE_PATTERN,
        example: DATE_EXAMPLE,
        description:
          "ISO 8601, in the future and not later than the calling key's expiry. null: never (only when the calling key never expires). Left out: the calling key's expiry",
      },
      required: false,
      messages: [API_KEY_MESSAGES.expiresAt, API_KEY_MESSAGES.future],
    },
    (value) => {
      if (value === undefined || value === null) return value;
      // D46: "" is a malformed value here (not "no date" as for tasks).
      const date = typeof value === 'string' ? parseIsoDate(value) : null;
      if (date === null) throw new BadRequestException(API_KEY_MESSAGES.expiresAt);
      if (date.getTime() <= Date.now()) throw new BadRequestException(API_KEY_MESSAGES.future);
      return formatTimestamp(date);
    },
  )
  expires_at?: string | null;
}
