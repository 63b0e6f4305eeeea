import { Module } from '@nestjs/common';
import { EventsRetention } from './events-retention';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** The events feed and its retention (D37). Events are written by each domain's repository (events.sql.ts). */
@Module({ controllers: [EventsController], providers: [EventsService, EventsRepository, EventsRetention] })
export class EventsModule {}
