import { Module } from '@nestjs/common';

import { CommentsController } from './comments.controller';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';

/** Comments: list and create (spec: Comments). */
@Module({ controllers: [CommentsController], providers: [CommentsService, CommentsRepository] })
export class CommentsModule {}
