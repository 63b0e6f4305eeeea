/**
 * The job of one delivery attempt on the queue (graphile-worker). The
 * dispatcher's SQL function `webhooks_dispatch` (migration
 * 1795910000000-webhook-dispatch.ts) queues attempt 1 with the same task
 * name, payload shape and job key: change them together.
 */
export const DELIVERY_TASK = 'webhook_delivery';

/** Payload of a delivery job: which webhook, which event, which attempt (from 1), and the event object to POST. */
export interface DeliveryJob {
  webhook_id: number;
  event_id: number;
  attempt: number;
  body: Record<string, unknown> & { workspace_id?: number };
  /** When the attempt first fell due (ISO), kept when a job is put off for fairness (D38); absent: the job's run_at. */
  due_at?: string;
}

/** The job key of a (webhook, event) delivery: at most one pending job per delivery carries it. */
export function deliveryJobKey(job: Pick<DeliveryJob, 'webhook_id' | 'event_id'>): string {
  return `webhook:${job.webhook_id}:${job.event_id}`;
}

/**
 * The graphile-worker flags of a delivery job (migration 1795980000000 writes
 * the same in `webhooks_dispatch`): a process whose slots for the webhook or
 * the workspace are taken skips the job when it fetches (forbiddenFlags).
 */
export function deliveryJobFlags(job: Pick<DeliveryJob, 'webhook_id' | 'body'>): string[] {
  return [webhookFlag(job.webhook_id), workspaceFlag(Number(job.body.workspace_id))];
}

/** The flag of a webhook's delivery jobs. */
export const webhookFlag = (webhookId: number) => `webhook:${webhookId}`;
/** The flag of a workspace's delivery jobs. */
export const workspaceFlag = (workspaceId: number) => `workspace:${workspaceId}`;
