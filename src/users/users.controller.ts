import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { CurrentUserDto, USER_NOT_FOUND } from './users.dto';
import { UsersService } from './users.service';

@ApiTags('Users')
@Controller('api/v1')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** spec: Get current user. */
  @Get('me')
  @Authenticated('users:read')
  @ApiOperation({ summary: 'Get current user', description: 'The user who owns the API key.' })
  @ApiOkResponse({ type: CurrentUserDto })
  @ApiErrors({ 404: [USER_NOT_FOUND] })
  getCurrentUser(@CurrentCaller() caller: Caller): Promise<CurrentUserDto> {
    return this.users.getCurrentUser(caller);
  }
}
