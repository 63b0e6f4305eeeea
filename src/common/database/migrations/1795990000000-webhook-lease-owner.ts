import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 37 (webhook deliveries): `webhooks.attempt_by`, the process that holds
 * the webhook's attempt lease (`attempt_until`): a process works through a
 * webhook's due attempts several at a time under that lease
 * (src/webhooks/webhook-drain.ts). A process whose statement's answer was lost
 * (its database connection died after the commit) still knows the lease is its
 * own, instead of waiting for it to run out; another process's lease still
 * runs out by itself.
 */
export class WebhookLeaseOwner1795990000000 implements MigrationInterface {
  name = 'WebhookLeaseOwner1795990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks ADD COLUMN attempt_by text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks DROP COLUMN attempt_by`);
  }
}
