import { Module } from '@nestjs/common';

import { LabelsController } from './labels.controller';
import { LabelsRepository } from './labels.repository';
import { LabelsService } from './labels.service';

/** Labels: list, create (ext), delete. */
@Module({ controllers: [LabelsController], providers: [LabelsService, LabelsRepository], exports: [LabelsRepository] })
export class LabelsModule {}
