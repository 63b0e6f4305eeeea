import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { AppEnv } from '../config/env';
import { startPeriodic } from '../common/background/periodic';
import { InjectSettings } from '../config/settings';
import { EventsRepository } from './events.repository';

/** How often each server process prunes old events. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** The first pruning after start, so that a process restarted often still prunes, and boot stays quiet. */
const FIRST_PRUNE_DELAY_MS = 60 * 1000;

/**
 * D37 retention: events older than EVENTS_RETENTION_DAYS are deleted in the
 * background by each server process (startPeriodic: a failure is logged and
 * retried at the next turn; stopped when the app closes). Several processes
 * pruning at once delete the same rows harmlessly.
 */
@Injectable()
export class EventsRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventsRetention.name);
  private readonly days: number;
  private stop?: () => void;

  constructor(
    private readonly events: EventsRepository,
    @InjectSettings() settings: AppEnv,
  ) {
    this.days = settings.eventsRetentionDays;
  }

  onApplicationBootstrap(): void {
    this.stop = startPeriodic(
      { what: 'Pruning old events', firstDelayMs: FIRST_PRUNE_DELAY_MS, everyMs: PRUNE_INTERVAL_MS, run: () => this.prune() },
      this.logger,
    );
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  /** Deletes the events past retention now; returns how many went. */
  async prune(): Promise<number> {
    const pruned = await this.events.prune(this.days);
    if (pruned > 0) this.logger.log(`Pruned ${pruned} events older than ${this.days} days`);
    return pruned;
  }
}
