import { createHmac, timingSafeEqual } from 'crypto';

/** What a local link lets its holder do. */
export type LinkOperation = 'upload' | 'download';

/** Where the local driver's links live (outside /api/v1, no key: D47). */
export const FILES_PREFIX = '/files/';

/** A verified link: the attachment it names and what it allows. */
export interface VerifiedLink {
  attachmentId: number;
  operation: LinkOperation;
}

/**
 * D47's local links: `/files/<attachment id>/<operation>/<expiry, Unix seconds>/<signature>`,
 * the signature an HMAC-SHA256 (base64url) over the three under the `files` server secret.
 * The link carries no file name and no storage key: the object is found through the row.
 */
export class LinkSigner {
  constructor(private readonly secret: () => string) {}

  /** The path of a link for `operation` on attachment `attachmentId`, valid until `expiresAt`. */
  path(attachmentId: number, operation: LinkOperation, expiresAt: Date): string {
    const expiry = Math.floor(expiresAt.getTime() / 1000);
    return `${FILES_PREFIX}${attachmentId}/${operation}/${expiry}/${this.sign(attachmentId, operation, expiry)}`;
  }

  /**
   * The link of request path `path` (query string ignored), or null when it is not one of ours,
   * tampered with or expired at `now` (ms).
   */
  verify(path: string, now = Date.now()): VerifiedLink | null {
    const match = /^\/files\/([1-9][0-9]{0,9})\/(upload|download)\/([0-9]{1,12})\/([A-Za-z0-9_-]{43})$/.exec(path.split('?')[0]);
    if (!match) return null;
    const [, id, operation, expiry, signature] = match;
    const expected = Buffer.from(this.sign(Number(id), operation as LinkOperation, Number(expiry)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if (Number(expiry) * 1000 <= now) return null;
    return { attachmentId: Number(id), operation: operation as LinkOperation };
  }

  private sign(attachmentId: number, operation: LinkOperation, expiry: number): string {
    return createHmac('sha256', this.secret()).update(`${operation}:${attachmentId}:${expiry}`).digest('base64url');
  }
}
