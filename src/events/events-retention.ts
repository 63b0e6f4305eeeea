import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { inBatches, ScheduledTasks } from '../common/background/scheduled-tasks';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { EventsRepository } from './events.repository';

/** When old events are deleted (cron: every minute, by one process). */
const PRUNE_CRON = '* * * * *';
/** Rows one statement of a pruning run deletes at most. */
const PRUNE_BATCH = 5_000;
/** How long one pruning run goes on at most (the next one continues). */
const PRUNE_BUDGET_MS = 50_000;

/**
 * D37 retention: events older than EVENTS_RETENTION_DAYS are deleted on the
 * job queue's crontab, every minute, by one of the processes that run the queue,
 * in batches until none is left (ScheduledTasks: a failure is logged and the
 * next minute runs again).
 */
@Injectable()
export class EventsRetention implements OnModuleInit {
  private readonly logger = new Logger(EventsRetention.name);
  private readonly days: number;

  constructor(
    private readonly events: EventsRepository,
    private readonly scheduled: ScheduledTasks,
    @InjectSettings() settings: AppEnv,
  ) {
    this.days = settings.eventsRetentionDays;
  }

  onModuleInit(): void {
    this.scheduled.register({ name: 'prune_events', match: PRUNE_CRON, run: () => this.prune() });
  }

  /** Deletes the events past retention now, PRUNE_BATCH a statement, for at most PRUNE_BUDGET_MS; returns how many went. */
  async prune(): Promise<number> {
    const pruned = await inBatches((size) => this.events.prune(this.days, size), PRUNE_BATCH, PRUNE_BUDGET_MS);
    if (pruned > 0) this.logger.log(`Pruned ${pruned} events older than ${this.days} days`);
    return pruned;
  }
}
