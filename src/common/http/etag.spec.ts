import { createHash } from 'crypto';

import { etagOfDigest, ifMatchPrecondition, noneMatch, parseEntityTags } from './etag';

/** D36: tags, and the If-Match / If-None-Match lists. */
describe('etag', () => {
  const body = '{"id":1,"title":"T"}';
  const digest = createHash('sha256').update(body).digest();
  const tag = etagOfDigest(digest);

  it('is the quoted base64url SHA-256 of the body bytes', () => {
    expect(tag).toBe(`"${digest.toString('base64url')}"`);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it.each([
    ['*', '*'],
    [' * ', '*'],
    ['"a"', [{ weak: false, opaque: 'a' }]],
    [
      'W/"a", "b"',
      [
        { weak: true, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    [
      '"a",,"b" ,',
      [
        { weak: false, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    ['""', [{ weak: false, opaque: '' }]],
    ['', []],
    ['a', null],
    ['w/"a"', null],
    ['"a" "b"', null],
    ['"a', null],
    ['"a"b', null],
    ['*, "a"', null],
  ])('parses %j', (value, expected) => {
    expect(parseEntityTags(value)).toEqual(expected);
  });

  it('If-None-Match compares weakly; `*` matches; nonsense matches nothing', () => {
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"x", ${tag}`, tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
    expect(noneMatch('"x"', tag)).toBe(false);
    expect(noneMatch(`${tag} x`, tag)).toBe(false);
    expect(noneMatch(undefined, tag)).toBe(false);
  });

  it('If-Match: absent or empty is none; `*` is any; only strong tags of our exact form name a digest', () => {
    expect(ifMatchPrecondition(undefined)).toBeNull();
    expect(ifMatchPrecondition(' ')).toBeNull();
    expect(ifMatchPrecondition('*')).toEqual({ any: true, digests: [] });
    expect(ifMatchPrecondition(`"x", ${tag}`)).toEqual({ any: false, digests: [digest] });
    expect(ifMatchPrecondition(`W/${tag}`)).toEqual({ any: false, digests: [] });
    expect(ifMatchPrecondition('garbage')).toEqual({ any: false, digests: [] });
    // Another spelling of the same bits (a non-zero pad bit in the last character) is another tag.
    const last = tag.at(-2)!;
    const sibling = tag.slice(0, -2) + String.fromCharCode(last.charCodeAt(0) + 1) + '"';
    expect(Buffer.from(sibling.slice(1, -1), 'base64url').equals(digest)).toBe(true);
    expect(ifMatchPrecondition(sibling)).toEqual({ any: false, digests: [] });
  });
});
