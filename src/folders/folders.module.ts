import { Module } from '@nestjs/common';

/** Folders: routes and rules of this domain. */
@Module({})
export class FoldersModule {}
