import { StatementTexts } from '../../src/common/database/prepared';

/*
 * Jest setupFiles: defaults for the test processes (issue 12): request lines
 * stay quiet unless LOG_LEVEL asks for them; webhooks are not delivered
 * (WEBHOOK_WORKER=false) except by the tests that turn delivery on. (Rate limiting is off by default;
 * its own tests turn it on for their apps.)
 */
process.env.LOG_LEVEL ??= 'fatal';
process.env.WEBHOOK_WORKER ??= 'false';
// Issue 36: the attachment removal worker likewise (its own tests turn it on or run it by hand).
process.env.ATTACHMENT_WORKER ??= 'false';

// Issue 37: listing statements are kept by their query's shape; every reuse compares the whole texts
// here, so a shape that misses something its text depends on fails the test that lists with it.
StatementTexts.checkWholeTexts = true;
