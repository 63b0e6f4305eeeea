import { BadRequestException } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

import { BODY_ID } from '../common/openapi/ids';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { checkText, nulMessage } from '../common/validation/body';
import { NOT_SENT, RuleField } from '../common/validation/body-fields';
import { parseId, requireId } from '../common/validation/ids';

/** D41: the roles a member may be given (the owner is made only by creating a workspace). */
export const MEMBER_ROLES = ['admin', 'member', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** D41's 400 messages, in one place. */
export const MEMBER_MESSAGES = {
  userOrEmail: 'user_id or email is required',
  notBoth: 'Send user_id or email, not both',
  userId: 'user_id must be a valid numeric ID',
  email: 'email must be a string',
  role: `Invalid role. Must be one of: ${MEMBER_ROLES.join(', ')}`,
  restricted: 'restricted must be a boolean',
  folderIds: 'folder_ids must be an array of folder IDs',
  listIds: 'list_ids must be an array of list IDs',
} as const;

const sent = (value: unknown) => value !== undefined && value !== null;

/** D41: `user_id` or `email`, exactly one of them; the user id as a number. */
function UserIdField(): PropertyDecorator {
  return RuleField(
    {
      name: 'user_id',
      api: { ...BODY_ID, description: 'The user to add (or send `email`)', example: 7 },
      required: false,
      messages: [MEMBER_MESSAGES.userOrEmail, MEMBER_MESSAGES.notBoth, MEMBER_MESSAGES.userId],
    },
    (value, body) => {
      if (!sent(value) && !sent(body.email)) throw new BadRequestException(MEMBER_MESSAGES.userOrEmail);
      if (sent(value) && sent(body.email)) throw new BadRequestException(MEMBER_MESSAGES.notBoth);
      return sent(value) ? requireId(value, MEMBER_MESSAGES.userId) : NOT_SENT;
    },
  );
}

/** D41: `email`, trimmed; compared with the stored email ignoring ASCII case. */
function EmailField(): PropertyDecorator {
  return RuleField(
    {
      name: 'email',
      api: { type: 'string', description: 'The email of the user to add (or send `user_id`); ASCII case is ignored', example: 'ann@example.com' },
      required: false,
      messages: [MEMBER_MESSAGES.email, nulMessage('email')],
    },
    (value) => {
      if (!sent(value)) return NOT_SENT;
      if (typeof value !== 'string') throw new BadRequestException(MEMBER_MESSAGES.email);
      return checkText('email', value).trim();
    },
  );
}

/** D41: `role`: admin, member or viewer (null: not sent). */
function RoleField(description: string): PropertyDecorator {
  return RuleField(
    { name: 'role', api: { enum: [...MEMBER_ROLES], description, example: 'member' }, required: false, messages: [MEMBER_MESSAGES.role] },
    (value) => {
      if (!sent(value)) return value === null ? NOT_SENT : undefined;
      if (!(MEMBER_ROLES as readonly unknown[]).includes(value)) throw new BadRequestException(MEMBER_MESSAGES.role);
      return value;
    },
  );
}

/** D41: `restricted`: a boolean (null: not sent). */
function RestrictedField(description: string): PropertyDecorator {
  return RuleField(
    { name: 'restricted', api: { type: 'boolean', description, example: false }, required: false, messages: [MEMBER_MESSAGES.restricted] },
    (value) => {
      if (!sent(value)) return value === null ? NOT_SENT : undefined;
      if (typeof value !== 'boolean') throw new BadRequestException(MEMBER_MESSAGES.restricted);
      return value;
    },
  );
}

/** D41: `folder_ids`, `list_ids`: arrays of ids (D5), duplicates collapsed (first-seen order kept: step 8 goes in array order). */
function GrantIdsField(name: 'folder_ids' | 'list_ids', description: string): PropertyDecorator {
  const message = name === 'folder_ids' ? MEMBER_MESSAGES.folderIds : MEMBER_MESSAGES.listIds;
  return RuleField({ name, api: { type: 'array', items: { ...BODY_ID }, description, example: [2] }, required: false, messages: [message] }, (value) => {
    if (!sent(value)) return value === null ? NOT_SENT : undefined;
    if (!Array.isArray(value)) throw new BadRequestException(message);
    const ids = new Set<number>();
    for (const element of value) {
      const id = parseId(element);
      if (id === null) throw new BadRequestException(message);
      ids.add(id);
    }
    return [...ids];
  });
}

/** D41: Add member, request body; after validation, the values as sent (defaults filled by the service). */
export class AddMemberDto {
  @UserIdField() user_id?: number;
  @EmailField() email?: string;
  @RoleField('Default `member`') role?: MemberRole;
  @RestrictedField('Access-restricted to the granted folders and lists (members and viewers only). Default false') restricted?: boolean;
  @GrantIdsField('folder_ids', 'Granted folders (count only while `restricted`). Default []') folder_ids?: number[];
  @GrantIdsField('list_ids', 'Granted lists (count only while `restricted`). Default []') list_ids?: number[];
}

/** D41: Update member, request body; only sent fields change; the arrays replace the grants. */
export class UpdateMemberDto {
  @RoleField('The new role') role?: MemberRole;
  @RestrictedField('Access-restricted to the granted folders and lists (members and viewers only)') restricted?: boolean;
  @GrantIdsField('folder_ids', 'Replaces the granted folders') folder_ids?: number[];
  @GrantIdsField('list_ids', 'Replaces the granted lists') list_ids?: number[];
}

/** D41: Member access, the answer. */
export class MemberAccessDto {
  @ApiInteger({ example: 7 }) user_id: number;
  @ApiProperty({ enum: ['owner', 'admin', 'member', 'viewer'] }) role: string;
  @ApiProperty({ description: 'Whether the grants below limit what the member sees' }) restricted: boolean;
  @ApiProperty({ type: 'array', items: { type: 'integer' }, description: 'Granted folders, ascending (stored whatever `restricted` is)' }) folder_ids: number[];
  @ApiProperty({ type: 'array', items: { type: 'integer' }, description: 'Granted lists, ascending' }) list_ids: number[];
}
