import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { EventsRepository } from './events.repository';

/** How often each server process prunes old events. */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** The first pruning after start, so that a process restarted often still prunes, and boot stays quiet. */
export const FIRST_PRUNE_DELAY_MS = 60 * 1000;

/**
 * D37 retention: events older than EVENTS_RETENTION_DAYS are deleted in the
 * background, by a timer each server process starts once (unref'd: it never
 * keeps a process alive; stopped when the app closes). Several processes
 * pruning at once delete the same rows harmlessly. A failure is logged and
 * retried at the next turn.
 */
@Injectable()
export class EventsRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventsRetention.name);
  private readonly days: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: EventsRepository,
    @InjectSettings() settings: AppEnv,
  ) {
    this.days = settings.eventsRetentionDays;
  }

  onApplicationBootstrap(): void {
    this.timer = setTimeout(() => {
      void this.prune();
      this.timer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS).unref();
    }, FIRST_PRUNE_DELAY_MS).unref();
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
    clearInterval(this.timer);
  }

  /** Deletes the events past retention now; returns how many went (0 after a logged failure). */
  async prune(): Promise<number> {
    try {
      const pruned = await this.events.prune(this.days);
      if (pruned > 0) this.logger.log(`Pruned ${pruned} events older than ${this.days} days`);
      return pruned;
    } catch (error) {
      this.logger.warn(`Pruning old events failed: ${(error as Error).message}`);
      return 0;
    }
  }
}
