import { Module } from '@nestjs/common';

/** CustomFields: routes and rules of this domain. */
@Module({})
export class CustomFieldsModule {}
