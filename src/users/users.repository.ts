import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { CurrentUserDto } from './users.dto';

/** SQL for users. */
@Injectable()
export class UsersRepository {
  constructor(private readonly db: DataSource) {}

  /** The current-user object of user `id`, or null. */
  async findCurrentUser(id: number): Promise<CurrentUserDto | null> {
    const rows: CurrentUserDto[] = await this.db.query(`SELECT id, email, name, avatar_url, api_ts(created_at) AS created_at FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }
}
