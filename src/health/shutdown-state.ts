/*
 * Whether this process has begun to shut down: readiness answers
 * 503 from then on, so a load balancer stops sending new requests while the
 * ones in flight finish (D32). Set by the server entry's signal handler.
 */
let shuttingDown = false;

/** Marks the process as shutting down; readiness fails from now on. */
export function markShuttingDown(): void {
  shuttingDown = true;
}

/** True once shutdown has begun. */
export function isShuttingDown(): boolean {
  return shuttingDown;
}
