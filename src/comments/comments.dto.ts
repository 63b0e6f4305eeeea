import { ApiProperty } from '@nestjs/swagger';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { SanitizedHtml } from '../common/validation/body-fields';

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
  @ApiProperty({ example: false, description: 'Always `false` on creation' }) resolved: boolean;
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
