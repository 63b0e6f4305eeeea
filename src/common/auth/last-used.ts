import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';

import { startPeriodic } from '../background/periodic';
import { AuthRepository } from './auth.repository';

/** How often each process writes the `last_used_at` it collected (D46: at most 60 s stale, flush included). */
export const LAST_USED_FLUSH_MS = 15_000;

/**
 * D46 `last_used_at`: the start of some request made with the key, at most 60 s stale, without a
 * write per request. The guard records each authenticated request's key and start time here (in
 * memory); every LAST_USED_FLUSH_MS one statement writes them all, moving each key's
 * `last_used_at` only forward. The key lookup (AuthRepository.findByHash) still sets it on a
 * key's first use; a process that stops writes what it has left.
 */
@Injectable()
export class LastUsedRecorder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LastUsed');
  /** Key id → the latest request start (ms) not written yet. */
  private pending = new Map<number, number>();
  private stop: (() => void) | undefined;

  constructor(private readonly repo: AuthRepository) {}

  /** Notes that a request made with key `keyId` starts now. */
  record(keyId: number): void {
    this.pending.set(keyId, Date.now());
  }

  /** Writes what was recorded since the last flush (one statement; none when nothing was). */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.repo.touch(
        [...batch.keys()],
        [...batch.values()].map((ms) => new Date(ms).toISOString()),
      );
    } catch (error) {
      // Kept for the next turn, unless a newer request of the key came meanwhile.
      for (const [id, ms] of batch) if (!this.pending.has(id)) this.pending.set(id, ms);
      throw error;
    }
  }

  onModuleInit(): void {
    this.stop = startPeriodic(
      { what: 'Recording when API keys were last used', firstDelayMs: LAST_USED_FLUSH_MS, everyMs: LAST_USED_FLUSH_MS, run: () => this.flush() },
      this.logger,
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.stop?.();
    await this.flush().catch((error: unknown) => this.logger.warn(`Recording when API keys were last used failed: ${(error as Error).message}`));
  }
}
