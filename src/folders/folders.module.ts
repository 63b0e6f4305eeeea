import { Module } from '@nestjs/common';

import { FoldersController } from './folders.controller';
import { FoldersRepository } from './folders.repository';
import { FoldersService } from './folders.service';

/** Folders: list, create, update (ext), delete (spec: Folders; D26). FoldersRepository is shared with lists (D27). */
@Module({ controllers: [FoldersController], providers: [FoldersService, FoldersRepository], exports: [FoldersRepository] })
export class FoldersModule {}
