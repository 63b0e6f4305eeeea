import { Injectable, NotFoundException } from '@nestjs/common';

import type { Caller } from '../common/auth/auth-context';
import { type CurrentUserDto, USER_NOT_FOUND } from './users.dto';
import { UsersRepository } from './users.repository';

/** Rules for users. */
@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  /** spec: Get current user; 404 `User not found` when the key's user is gone. */
  async getCurrentUser(caller: Caller): Promise<CurrentUserDto> {
    const user = await this.users.findCurrentUser(caller.userId);
    if (!user) throw new NotFoundException(USER_NOT_FOUND);
    return user;
  }
}
