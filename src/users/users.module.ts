import { Module } from '@nestjs/common';

import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** Users: the current user. */
@Module({ controllers: [UsersController], providers: [UsersService, UsersRepository] })
export class UsersModule {}
