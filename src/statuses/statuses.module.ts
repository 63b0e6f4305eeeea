import { Module } from '@nestjs/common';

import { StatusesController } from './statuses.controller';
import { StatusesRepository } from './statuses.repository';
import { StatusesService } from './statuses.service';

/** Statuses: list (ext), create, update (spec: Statuses; D25). */
@Module({ controllers: [StatusesController], providers: [StatusesService, StatusesRepository], exports: [StatusesRepository] })
export class StatusesModule {}
