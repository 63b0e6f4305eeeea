import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { WorkspaceImageUrl, WorkspaceName, WorkspaceSlug, WorkspaceText } from './workspace-fields';

const ROLES = ['owner', 'admin', 'member', 'viewer'];

/** spec: Workspace (with the caller's role). */
export class WorkspaceDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiProperty({ example: 'Acme' }) name: string;
  @ApiProperty({ example: 'acme' }) slug: string;
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ type: 'string', nullable: true }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true }) color: string | null;
  @ApiProperty({ type: 'string', nullable: true }) image_url: string | null;
  @ApiInteger({ example: 1 }) owner_id: number;
  @ApiProperty({ enum: ROLES, description: "The caller's role" }) role: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** spec: Workspace member. */
export class MemberDto {
  @ApiInteger({ description: 'User id' }) id: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Only for the workspace owner; null for every other role' }) email: string | null;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true }) avatar_url: string | null;
  @ApiProperty({ enum: ROLES }) role: string;
  @ApiProperty({ format: 'date-time' }) joined_at: string;
}

/** D40: Create workspace, request body; after validation, the values as stored (`slug` undefined: derived from the name). */
export class CreateWorkspaceDto {
  @WorkspaceName({ required: true, description: 'Trimmed; blank is rejected' }) name: string;
  @WorkspaceSlug({ create: true }) slug?: string;
  @WorkspaceText('description') description?: string | null;
  @WorkspaceText('icon', 'rocket') icon?: string | null;
  @WorkspaceText('color', 'blue') color?: string | null;
  @WorkspaceImageUrl() image_url?: string | null;
}

/** D40: Update workspace, request body; only sent fields change (the others stay undefined after validation). */
export class UpdateWorkspaceDto {
  @WorkspaceName({ required: false, description: 'Trimmed; cannot be blank' }) name?: string;
  @WorkspaceSlug({ create: false }) slug?: string;
  @WorkspaceText('description') description?: string | null;
  @WorkspaceText('icon', 'rocket') icon?: string | null;
  @WorkspaceText('color', 'blue') color?: string | null;
  @WorkspaceImageUrl() image_url?: string | null;
}
