import { Module } from '@nestjs/common';

import { FoldersModule } from '../folders/folders.module';
import { ListsController } from './lists.controller';
import { ListsRepository } from './lists.repository';
import { ListsService } from './lists.service';

/** Lists: lists of a folder (ext), create, update (ext), delete (ext) (spec: Lists; D26, D27). */
@Module({ imports: [FoldersModule], controllers: [ListsController], providers: [ListsService, ListsRepository], exports: [ListsRepository] })
export class ListsModule {}
