import { processLogger } from '../common/logging/logger';
import type { WebhookSettings } from '../config/env';
import { DeliveryJob, deliveryJobFlags, deliveryJobKey } from './delivery-job';
import { attemptDelivery } from './webhook-sender';
import { WebhookMetrics } from './webhooks.metrics';
import { StepInput, Unrecorded, WebhooksRepository } from './webhooks.repository';

/**
 * How long a connected attempt waits for the other attempts of its drain that
 * are still connecting, so that one send lock (two round trips) serves them
 * all; and how long, after an attempt of the drain ended, the drain waits for
 * more to end before it records them and claims their successors in one step.
 */
const GATHER_MS = 2;

/** How a job handed to a drain ended there: made now, put off (another process holds the webhook's lease), or nothing to do. */
export type SeedEnd = 'started' | 'busy' | 'skipped';

/** The bounds of a drain (see WebhookWorker), and whose it is. */
export interface DrainOptions {
  /** The process's name as a lease holder (WebhooksRepository.step). */
  owner: string;
  /** Attempts of the webhook in flight at once. */
  inFlight: number;
  /** How long the drain claims new attempts. */
  batchMs: number;
  standInMs: number;
  leaseMs: number;
  /** Told of each retry job a step queued, by its delay (ms): the queue looks for it when it falls due. */
  dueIn: (ms: number) => void;
}

/** A request of a connected attempt for the send lock. */
interface SendRequest {
  dueAt: Date;
  send: () => void;
  resolve: (sent: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * D38: one process's run through one webhook's due attempts, for at most
 * `batchMs`, under the webhook's attempt lease (no other process works
 * through the same webhook meanwhile). Several attempts are in flight at once
 * (at most `inFlight`; no order is promised). Each step (one statement,
 * WebhooksRepository.step) records the attempts that ended since the last one,
 * with what follows each (its retry job or none), takes the jobs handed to the
 * drain (seeds) and claims due ones to refill the window, and renews or gives
 * back the lease. Connected attempts wait for the webhook's send lock
 * together (sendLocked: no attempt starts after DELETE or a pause answered).
 */
export class WebhookDrain {
  private readonly seeds: Array<{ job: DeliveryJob; dueAt: Date; end: (how: SeedEnd) => void; fail: (error: unknown) => void }> = [];
  private readonly finished: StepInput['records'] = [];
  private readonly drops: string[] = [];
  /** Job keys of attempts whose outcome was lost. */
  private readonly lost: string[] = [];
  private inFlight = 0;
  /** Attempts in flight that have not asked for the send lock yet (connecting, or ended before). */
  private connecting = 0;
  private readonly sendQueue: SendRequest[] = [];
  private sending = false;
  private sendTimer?: NodeJS.Timeout;
  private leaseUntil: string | null = null;
  private closed = false;
  private wake?: () => void;
  private readonly flags: string[];

  constructor(
    readonly webhookId: number,
    workspaceId: number,
    private readonly repo: WebhooksRepository,
    private readonly metrics: WebhookMetrics,
    private readonly settings: WebhookSettings,
    private readonly limits: DrainOptions,
    private readonly stopping: AbortSignal,
  ) {
    this.flags = deliveryJobFlags({ webhook_id: webhookId, body: { workspace_id: workspaceId } });
  }

  /** Hands a job the queue fetched to the drain; resolves how it ended there, or null when the drain has ended (start another). */
  add(job: DeliveryJob, dueAt: Date): Promise<SeedEnd> | null {
    if (this.closed) return null;
    return new Promise<SeedEnd>((end, fail) => {
      this.seeds.push({ job, dueAt, end, fail });
      this.wake?.();
    });
  }

  /**
   * Runs the drain until its time is up and its attempts have ended; then
   * whatever was not recorded (shutdown, a database failure) is returned.
   */
  async run(): Promise<Unrecorded[]> {
    const until = performance.now() + this.limits.batchMs;
    try {
      for (;;) {
        const open = !this.stopping.aborted && performance.now() < until;
        // Jobs handed over wait for room in the window (several may be fetched at once, before the queue skips the webhook).
        const room = Math.max(0, this.limits.inFlight - this.inFlight);
        const seeds = this.seeds.splice(0, room);
        const records = this.finished.splice(0);
        const drops = this.drops.splice(0);
        const claim = open ? room - seeds.length : 0;
        // Time is up and nothing is in flight or waiting: this step is the last (it gives the lease back); no seed is taken after it.
        const last = !open && this.inFlight === 0 && this.seeds.length === 0 && seeds.length === 0;
        if (last) this.closed = true;
        if (records.length > 0 || drops.length > 0 || seeds.length > 0 || claim > 0 || (last && this.leaseUntil !== null)) {
          let claimed: number;
          try {
            claimed = await this.step(records, drops, seeds, claim);
          } catch (error) {
            for (const seed of seeds) seed.fail(error);
            for (const r of records) this.lost.push(deliveryJobKey(r.job));
            throw error;
          }
          if (last) break;
          if (claimed === 0 && this.inFlight === 0 && this.seeds.length === 0 && this.finished.length === 0 && this.drops.length === 0) {
            // Nothing due and nothing in flight: the step gave the lease back.
            this.closed = true;
            break;
          }
        } else if (last) break;
        await this.settle();
      }
    } catch (error) {
      this.closed = true;
      if (!this.stopping.aborted)
        processLogger().warn({ context: 'Webhooks', webhook_id: this.webhookId }, `webhook delivery step failed: ${(error as Error).message}`);
      for (const seed of this.seeds.splice(0)) seed.fail(error);
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.wake = () => this.inFlight === 0 && resolve()));
      for (const r of this.finished.splice(0)) this.lost.push(deliveryJobKey(r.job));
    }
    const leaseUntil = this.leaseUntil ?? '-infinity';
    return this.lost.map((key) => ({ webhookId: this.webhookId, leaseUntil, key }));
  }

  /** Until an attempt ended (then GATHER_MS more for others, or until none is in flight) or a seed came that fits the window. */
  private async settle(): Promise<void> {
    const seedFits = () => this.seeds.length > 0 && this.inFlight < this.limits.inFlight;
    if (this.finished.length === 0 && this.drops.length === 0 && !seedFits() && this.inFlight > 0) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.inFlight > 0 && !seedFits()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GATHER_MS);
        this.wake = () => {
          if (this.inFlight > 0 && !seedFits()) return;
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.wake = undefined;
  }

  /** One step (WebhooksRepository.step); starts the attempts it hands out and resolves how many it claimed. */
  private async step(records: StepInput['records'], drops: string[], seeds: WebhookDrain['seeds'], claim: number): Promise<number> {
    const result = await this.repo.step(this.webhookId, {
      records,
      drops,
      seeds,
      claim,
      inFlight: this.inFlight,
      owner: this.limits.owner,
      flags: this.flags,
      standInMs: this.limits.standInMs,
      leaseMs: this.limits.leaseMs,
    });
    this.leaseUntil = result.leaseUntil;
    for (const r of records) if (r.next) this.limits.dueIn(r.next.inMs);
    const { url, secret } = result;
    seeds.forEach((seed, i) => {
      const { go, busy } = result.seeds[i];
      if (go && url !== null && secret !== null) this.start(seed.job, seed.dueAt, url, secret);
      seed.end(go ? 'started' : busy ? 'busy' : 'skipped');
    });
    if (url !== null && secret !== null) for (const c of result.claimed) this.start(c.job, c.dueAt, url, secret);
    return result.claimed.length;
  }

  /** Makes an attempt in the background: it ends recorded (at the next step), dropped, or lost. */
  private start(job: DeliveryJob, dueAt: Date, url: string, secret: string): void {
    this.inFlight += 1;
    this.connecting += 1;
    let asked = false;
    const ask = () => {
      if (asked) return;
      asked = true;
      this.connecting -= 1;
    };
    const { timeoutMs, retryDelaysMs, allowPrivate } = this.settings;
    void attemptDelivery({
      url,
      secret,
      messageId: `evt_${job.event_id}`,
      body: JSON.stringify(job.body),
      timeoutMs,
      allowPrivate,
      signal: this.stopping,
      beforeSend: (send) =>
        new Promise<boolean>((resolve, reject) => {
          this.sendQueue.push({ dueAt, send, resolve, reject });
          ask();
          this.flushSends();
        }),
    })
      .then(
        (outcome) => {
          if (outcome === null) {
            // Deleted or paused since the attempt started: it sent nothing and ends here.
            this.drops.push(deliveryJobKey(job));
            return;
          }
          // attempt k + 1 (k from 1) waits the k-th delay; after the last delay's attempt, none.
          const delay = retryDelaysMs[job.attempt - 1];
          const next =
            outcome.result !== 'delivered' && delay !== undefined ? { job: { ...job, attempt: job.attempt + 1, due_at: undefined }, inMs: delay } : null;
          this.finished.push({
            job,
            record: { result: outcome.result, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs, attemptedAt: outcome.startedAt },
            next,
          });
          this.metrics.attempted(outcome.result);
          processLogger().info(
            {
              context: 'Webhooks',
              webhook_id: job.webhook_id,
              event_id: job.event_id,
              attempt: job.attempt,
              host: new URL(url).host,
              result: outcome.result,
              response_status: outcome.responseStatus,
              duration_ms: outcome.durationMs,
              next_attempt_in_ms: next?.inMs ?? null,
            },
            'webhook delivery attempt',
          );
        },
        (error: Error) => {
          this.lost.push(deliveryJobKey(job));
          if (this.stopping.aborted) {
            // Shutting down: the attempt is abandoned unrecorded; its stand-in job makes it after the restart.
            processLogger().info(
              { context: 'Webhooks', webhook_id: job.webhook_id, event_id: job.event_id, attempt: job.attempt },
              'webhook delivery attempt abandoned at shutdown',
            );
          } else {
            processLogger().warn(
              { context: 'Webhooks', webhook_id: job.webhook_id, event_id: job.event_id },
              `webhook delivery attempt failed: ${error.message}`,
            );
          }
        },
      )
      .finally(() => {
        ask();
        this.inFlight -= 1;
        this.flushSends();
        this.wake?.();
      });
  }

  /**
   * Lets the queued connected attempts send under one send lock once no other
   * attempt of the drain is still connecting, or GATHER_MS after the first
   * asked; one lock at a time.
   */
  private flushSends(force = false): void {
    if (this.sending || this.sendQueue.length === 0) return;
    if (this.connecting > 0 && !force) {
      this.sendTimer ??= setTimeout(() => {
        this.sendTimer = undefined;
        this.flushSends(true);
      }, GATHER_MS);
      return;
    }
    clearTimeout(this.sendTimer);
    this.sendTimer = undefined;
    const batch = this.sendQueue.splice(0);
    this.sending = true;
    this.repo
      .sendLocked(
        this.webhookId,
        batch.map((r) => r.dueAt),
        (i) => batch[i].send(),
      )
      .then(
        (sent) => batch.forEach((r, i) => r.resolve(sent[i])),
        (error) => batch.forEach((r) => r.reject(error)),
      )
      .finally(() => {
        this.sending = false;
        this.flushSends();
      });
  }
}
