/**
 * D47: the headers a download answers with, for both drivers: the local
 * `/files/` route sets them, the s3 driver's presigned GET overrides them.
 */

/** D47: types that a browser could run or render as a page: served as `application/octet-stream`. */
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'text/ecmascript',
]);

/** D47: the `Content-Type` of a download of an attachment of `mimeType`. */
export function servedContentType(mimeType: string): string {
  return ACTIVE_TYPES.has(mimeType) || mimeType.endsWith('+xml') ? 'application/octet-stream' : mimeType;
}

/** D47: the characters `filename*` keeps as they are (RFC 8187 attr-char); every other UTF-8 byte becomes `%XX`. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/**
 * D47: `attachment; filename="<fallback>"; filename*=UTF-8''<encoded>`. Fallback: each code
 * point outside 0x20-0x7E, and each `"` and `\`, becomes `_`; encoded: every UTF-8 byte
 * outside the attr-chars becomes `%XX` (upper-case hex).
 */
export function contentDisposition(fileName: string): string {
  let fallback = '';
  for (const ch of fileName) {
    const code = ch.codePointAt(0)!;
    fallback += code < 0x20 || code > 0x7e || ch === '"' || ch === '\\' ? '_' : ch;
  }
  let encoded = '';
  for (const byte of Buffer.from(fileName, 'utf8')) {
    const ch = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
