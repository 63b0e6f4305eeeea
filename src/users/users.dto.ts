import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';

/** The 404 of a user id or email that names no user. */
export const USER_NOT_FOUND = 'User not found';

/** spec: Current user. */
export class CurrentUserDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiProperty({ example: 'alice@example.com' }) email: string;
  @ApiProperty({ example: 'Alice' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: null }) avatar_url: string | null;
  @ApiProperty({ format: 'date-time', example: '2025-01-01T00:00:00.000Z' }) created_at: string;
}
