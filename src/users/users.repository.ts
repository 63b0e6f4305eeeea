import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type WriteDb, writeStatement } from '../common/database/write-statement';
import type { CurrentUserDto } from './users.dto';

const USER_COLUMNS = 'id, email, name, avatar_url, api_ts(created_at) AS created_at';

/** UsersRepository.insert's statement: the user, unless the email is taken ignoring case (the unique index on lower(email)). */
const INSERT = writeStatement<{ email: string; name: string; avatarUrl: string | null }, CurrentUserDto>(
  'user.insert',
  () => '',
  (w) =>
    w
      .write(
        'u',
        `(INSERT INTO users (email, name, avatar_url) VALUES (${w.arg((i) => i.email, 'text')}, ${w.arg((i) => i.name, 'text')}, ${w.arg((i) => i.avatarUrl, 'text')})
          ON CONFLICT DO NOTHING RETURNING *)`,
      )
      .noEvent('D37 has no user events: a user belongs to no workspace, and the CLI records none')
      .select(`${USER_COLUMNS} FROM u`),
);

/** The write statements of users. */
export const USER_WRITES = [INSERT];

/** SQL for users. */
@Injectable()
export class UsersRepository {
  constructor(private readonly db: DataSource) {}

  /** The current-user object of user `id`, or null. */
  async findCurrentUser(id: number): Promise<CurrentUserDto | null> {
    const rows: CurrentUserDto[] = await this.db.query(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** A new user (D32 `users create`); null when a user with this email (ignoring case) exists. */
  async insert(user: { email: string; name: string; avatarUrl: string | null }, db: WriteDb = this.db): Promise<CurrentUserDto | null> {
    return (await INSERT.run(db, user))[0] ?? null;
  }
}
