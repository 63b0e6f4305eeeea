/**
 * What the REQUEST_TIMEOUT_MS deadline (http.setup.ts) and a write request's
 * database work (WriteRequests) tell each other, on the request.
 */
const CUT = Symbol('cut');
const EXPIRED = Symbol('expired');
type Tracked = { [CUT]?: () => Promise<boolean>; [EXPIRED]?: true };

/** Registers how to stop the request's database work: resolves true once nothing of it can commit, false when something already has. */
export function onDeadline(request: object, cut: () => Promise<boolean>): void {
  (request as Tracked)[CUT] = cut;
}

/**
 * Called by the deadline: stops the request's database work, if it registered any,
 * and marks the request expired (its handler must not start writing afterwards).
 * True when the 503 may go out (nothing committed).
 */
export function cutAtDeadline(request: object): Promise<boolean> {
  const tracked = request as Tracked;
  tracked[EXPIRED] = true;
  return tracked[CUT] ? tracked[CUT]() : Promise.resolve(true);
}

/** True once the request's deadline has passed. */
export function pastDeadline(request: object): boolean {
  return (request as Tracked)[EXPIRED] === true;
}
