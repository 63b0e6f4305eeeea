import { Module } from '@nestjs/common';

import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { EventsRetention } from './events-retention';

/** The events feed and its retention (D37). Events are written by each domain's repository (events.sql.ts). */
@Module({ controllers: [EventsController], providers: [EventsService, EventsRepository, EventsRetention] })
export class EventsModule {}
