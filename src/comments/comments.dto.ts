import { BadRequestException } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH, patchText, patchTextMessages } from '../common/validation/body';
import { AsyncRuleField, RuleField, SanitizedHtml } from '../common/validation/body-fields';
import { sanitizeHtmlField } from '../common/validation/html';

/** spec: Comment. Author fields (`name`, `avatar_url`) are the author's current user record. */
export class CommentDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiInteger({ example: 41 }) task_id: number;
  @ApiInteger({ example: 7, description: 'Author (the key owner for comments created through the API)' }) user_id: number;
  @ApiProperty({ example: 'Alice', description: "Author's display name" }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: null }) avatar_url: string | null;
  @ApiProperty({ example: '<p>On it</p>', description: 'HTML, sanitized on storage' }) content: string;
  @ApiInteger({ nullable: true, example: null, description: '`null` for top-level comments; always `null` when created through the API' })
  parent_comment_id: number | null;
  @ApiProperty({ example: false, description: '`false` on creation; set by Update comment' }) resolved: boolean;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create comment, request body; after validation, the content as stored. */
export class CreateCommentDto {
  @SanitizedHtml('content', {
    required: true,
    example: '<p>On it</p>',
    description: 'HTML; trimmed, then sanitized with an allowlist. Blank, or nothing left after sanitizing: 400 `content is required`.',
  })
  content: string;
}

/** D44: the 400 of a `resolved` that is not a boolean. */
const RESOLVED_MESSAGE = 'resolved must be a boolean';

/** D44: body of update comment, checked in the order `content`, `resolved`; after validation, the values as stored (undefined or null: not sent). */
export class UpdateCommentDto {
  @AsyncRuleField(
    {
      name: 'content',
      api: {
        type: 'string',
        maxLength: MAX_LENGTH.content,
        description: 'HTML; trimmed, then sanitized. Only the author may change it.',
        example: '<p>Done</p>',
      },
      required: false,
      messages: patchTextMessages('content', MAX_LENGTH.content),
    },
    async (value) => {
      if (value === undefined || value === null) return undefined;
      const clean = await sanitizeHtmlField('content', patchText('content', value, MAX_LENGTH.content)!, true);
      if (clean === '') throw new BadRequestException('content cannot be empty');
      return clean;
    },
  )
  content?: string | null;
  @RuleField({ name: 'resolved', api: { type: 'boolean', description: 'Any writer may set it' }, required: false, messages: [RESOLVED_MESSAGE] }, (value) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new BadRequestException(RESOLVED_MESSAGE);
    return value;
  })
  resolved?: boolean | null;
}
