import { ApiProperty } from '@nestjs/swagger';
import { ApiInteger } from '../common/openapi/integer.decorator';

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
