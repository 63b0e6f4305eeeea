/** D36's messages. */
export const PRECONDITION_MESSAGES = {
  failed: 'Precondition failed',
  required: 'If-Match is required',
} as const;

/**
 * D36: a body's tag is `"` + base64url of the SHA-256 of its UTF-8 bytes + `"` (43 characters between
 * the quotes). PostgreSQL computes the digest where it builds the body: digestSql, the SQL of that
 * SHA-256 over the JSON text `json` (an expression); etagOfDigest makes the tag of it.
 */
export const digestSql = (json: string) => `sha256(convert_to((${json})::text, 'UTF8'))`;

/** The tag of a body's SHA-256 digest (digestSql's). */
export function etagOfDigest(digest: Buffer): string {
  return `"${digest.toString('base64url')}"`;
}

/** One entity-tag of a list: `W/` or not, and the opaque part between the quotes. */
interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** An entity-tag, then a comma or the end, with optional whitespace (RFC 9110 8.8.3, 5.6.1). */
const TAG = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;
const EMPTY_ITEM = /[ \t]*,/y;

/**
 * An If-Match / If-None-Match value: `*`, a list of entity-tags (several header
 * lines arrive joined by commas), or null when it is neither (D36: matches nothing).
 */
export function parseEntityTags(value: string): '*' | EntityTag[] | null {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < value.length) {
    EMPTY_ITEM.lastIndex = at;
    if (EMPTY_ITEM.test(value)) {
      at = EMPTY_ITEM.lastIndex;
      continue;
    }
    TAG.lastIndex = at;
    const match = TAG.exec(value);
    if (!match) return value.slice(at).trim() === '' ? tags : null;
    tags.push({ weak: match[1] !== undefined, opaque: match[2] });
    at = TAG.lastIndex;
  }
  return tags;
}

/** D36 If-None-Match: true (304) when the value is `*` or lists `etag` by weak comparison. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const opaque = etag.slice(1, -1);
  return tags !== null && tags.some((tag) => tag.opaque === opaque);
}

/**
 * D36 If-Match as what the write checks against the current body: `any` for `*`,
 * else the SHA-256 digests the strong tags of our form name (a weak tag, or one
 * that no body of ours can have, matches nothing). Null when the header is
 * absent or empty (absent, D36).
 */
export function ifMatchPrecondition(header: string | undefined): { any: boolean; digests: Buffer[] } | null {
  if (header === undefined || header.trim() === '') return null;
  const tags = parseEntityTags(header);
  if (tags === '*') return { any: true, digests: [] };
  const digests: Buffer[] = [];
  for (const tag of tags ?? []) {
    if (tag.weak || !/^[A-Za-z0-9_-]{43}$/.test(tag.opaque)) continue;
    const digest = Buffer.from(tag.opaque, 'base64url');
    // Strong comparison is exact: a spelling that merely decodes to a digest is another tag.
    if (digest.toString('base64url') === tag.opaque) digests.push(digest);
  }
  return { any: false, digests };
}
