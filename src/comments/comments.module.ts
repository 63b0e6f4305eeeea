import { Module } from '@nestjs/common';

/** Comments: routes and rules of this domain. */
@Module({})
export class CommentsModule {}
