import { Injectable, PipeTransform } from '@nestjs/common';
import { PATH_ID_MESSAGES, PathIdKind, requireId } from './ids';

/**
 * Path id pipe (D5, D6): `@Param('id', new IdPipe('task'))` gives a number or
 * 400 `Invalid task ID`. Runs after the guard, so authentication and scope come first (D3).
 */
@Injectable()
export class IdPipe implements PipeTransform<unknown, number> {
  constructor(private readonly kind: PathIdKind) {}

  transform(value: unknown): number {
    return requireId(value, PATH_ID_MESSAGES[this.kind]);
  }
}
