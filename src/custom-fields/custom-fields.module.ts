import { Module } from '@nestjs/common';

import { CustomFieldsController } from './custom-fields.controller';
import { CustomFieldsRepository } from './custom-fields.repository';
import { CustomFieldsService } from './custom-fields.service';

/** Custom fields: the definitions listing (spec: Custom fields). */
@Module({ controllers: [CustomFieldsController], providers: [CustomFieldsService, CustomFieldsRepository] })
export class CustomFieldsModule {}
