import sanitize from 'sanitize-html';

/** D9: the tags and attributes kept in HTML fields; everything else is removed. */
const OPTIONS: sanitize.IOptions = {
  allowedTags: ['p', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'b', 'strong', 'i', 'em', 'u', 's', 'strike', 'a', 'ul', 'ol', 'li', 'blockquote', 'code', 'pre', 'span', 'img'],
  allowedAttributes: { a: ['href'], img: ['src', 'alt'] },
  allowedSchemesByTag: { a: ['http', 'https', 'mailto'], img: ['http', 'https'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/** D9: sanitizes an HTML field (`description`, `content`) before storage: scripts, styles, iframes, handlers and `javascript:` URLs go. */
export function sanitizeHtml(input: string): string {
  return sanitize(input, OPTIONS);
}
