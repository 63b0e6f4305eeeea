import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { MEMBER_CHANGE_DENIALS, NOT_FOUND } from '../common/access/access.policy';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId, PathIds } from '../common/validation/path-id';
import { MemberDto } from '../workspaces/workspaces.dto';
import { AddMemberDto, MemberAccessDto, UpdateMemberDto } from './members.dto';
import { MEMBER_ERRORS, MembersService } from './members.service';

const OWNER_RULES = [MEMBER_CHANGE_DENIALS.ownerChanged, MEMBER_CHANGE_DENIALS.admins];

/** HTTP for members (D41): add, update, remove, access. */
@ApiTags('Workspaces')
@Controller('api/v1/workspaces/:workspace_id/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  /** D41: add member. */
  @Post()
  @Authenticated('members:write', 'member.add')
  @ApiOperation({
    summary: 'Add member',
    description:
      'Adds a user (by `user_id` or by `email`) to the workspace with a role (default `member`) and, for members and viewers, an access restriction to granted folders and lists. ' +
      'Only the owner adds admins. Adding by email tells whether an account with that email exists.',
  })
  @ApiValidatedBody(AddMemberDto)
  @ApiErrors({
    400: [MEMBER_ERRORS.restrictedAdmin],
    403: [MEMBER_CHANGE_DENIALS.admins],
    404: [MEMBER_ERRORS.userNotFound, NOT_FOUND.folder, NOT_FOUND.list],
    409: [MEMBER_ERRORS.already],
  })
  @ApiCreatedResponse({ type: MemberDto })
  createMember(@CurrentCaller() caller: Caller, @PathId('workspace') workspaceId: number, @Body() body: unknown): Promise<MemberDto> {
    return this.members.addMember(caller, workspaceId, body);
  }

  /** D41: update member. */
  @Patch(':user_id')
  @Authenticated('members:write', 'member.edit')
  @ApiOperation({
    summary: 'Update member',
    description:
      "Changes a member's role, restriction or grants; only the fields sent change, and the arrays replace the grants. The owner cannot be changed; only the owner edits admins or makes someone admin.",
  })
  @ApiValidatedBody(UpdateMemberDto)
  @ApiErrors({ 400: [MEMBER_ERRORS.restrictedAdmin], 403: OWNER_RULES, 404: [NOT_FOUND.folder, NOT_FOUND.list] })
  @ApiOkResponse({ type: MemberDto })
  updateMember(@CurrentCaller() caller: Caller, @PathIds('workspace', 'user') [workspaceId, userId]: number[], @Body() body: unknown): Promise<MemberDto> {
    return this.members.updateMember(caller, workspaceId, userId, body);
  }

  /** D41: remove member. */
  @Delete(':user_id')
  @HttpCode(204)
  @Authenticated('members:write', 'member.remove')
  @ApiOperation({
    summary: 'Remove member',
    description:
      "Removes a member with their grants, their task assignments in the workspace and their id in `people` values and custom fields' allowed users, in one transaction. " +
      'Any member may remove themself; the owner cannot be removed; only the owner removes admins (an admin may remove themself).',
  })
  @ApiErrors({ 403: [MEMBER_CHANGE_DENIALS.ownerRemoved, MEMBER_CHANGE_DENIALS.admins] })
  @ApiNoContentResponse({ description: 'Removed; empty body' })
  async deleteMember(@CurrentCaller() caller: Caller, @PathIds('workspace', 'user') [workspaceId, userId]: number[]): Promise<void> {
    await this.members.removeMember(caller, workspaceId, userId);
  }

  /** D41: member access. */
  @Get(':user_id/access')
  @Authenticated('workspaces:read', 'member.access')
  @ApiOperation({
    summary: 'Member access',
    description: "The member's role, whether they are access-restricted, and their granted folders and lists (ids ascending).",
  })
  @ApiOkResponse({ type: MemberAccessDto })
  getMemberAccess(@CurrentCaller() caller: Caller, @PathIds('workspace', 'user') [workspaceId, userId]: number[]): Promise<MemberAccessDto> {
    return this.members.memberAccess(caller, workspaceId, userId);
  }
}
