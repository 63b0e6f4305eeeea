import { API_KEY_PREFIX, generateApiKey, hashApiKey, readApiKey } from './api-key';

describe('readApiKey (D20)', () => {
  it.each([
    ['Bearer', { authorization: 'Bearer svc_abc' }, 'svc_abc'],
    ['bearer, lowercase scheme', { authorization: 'bearer svc_abc' }, 'svc_abc'],
    ['BEARER, uppercase scheme', { authorization: 'BEARER svc_abc' }, 'svc_abc'],
    ['Bearer with extra spaces', { authorization: '  Bearer   svc_abc  ' }, 'svc_abc'],
    ['X-API-Key', { 'x-api-key': 'svc_abc' }, 'svc_abc'],
    ['X-API-Key, trimmed', { 'x-api-key': '  svc_abc ' }, 'svc_abc'],
    ['Bearer preferred over X-API-Key', { authorization: 'Bearer svc_bearer', 'x-api-key': 'svc_header' }, 'svc_bearer'],
    ['Bearer preferred even when X-API-Key lacks the prefix', { authorization: 'Bearer svc_bearer', 'x-api-key': 'nope' }, 'svc_bearer'],
    ['X-API-Key when the Authorization scheme is not bearer', { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'svc_header' }, 'svc_header'],
    ['the first of repeated headers', { authorization: ['Bearer svc_one', 'Bearer svc_two'] }, 'svc_one'],
    ['the first of repeated X-API-Key headers', { 'x-api-key': ['svc_one', 'svc_two'] }, 'svc_one'],
  ])('reads the key from %s', (_case, headers, expected) => {
    expect(readApiKey(headers)).toBe(expected);
  });

  it.each([
    ['no header', {}],
    ['Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Token scheme', { authorization: 'Token svc_abc' }],
    ['a bare key in Authorization', { authorization: 'svc_abc' }],
    ['Bearer without a key', { authorization: 'Bearer' }],
    ['Bearer with a blank key', { authorization: 'Bearer    ' }],
    ['Bearer key without the prefix', { authorization: 'Bearer abc123' }],
    ['Bearer key with the prefix in another case', { authorization: 'Bearer SVC_abc' }],
    ['Bearer with the prefix only', { authorization: 'Bearer svc_' }],
    ['Bearer without the prefix, X-API-Key with it', { authorization: 'Bearer abc', 'x-api-key': 'svc_abc' }],
    ['X-API-Key without the prefix', { 'x-api-key': 'abc123' }],
    ['X-API-Key with the prefix only', { 'x-api-key': 'svc_' }],
    ['empty X-API-Key', { 'x-api-key': '' }],
    ['X-API-Key with a Bearer value', { 'x-api-key': 'Bearer svc_abc' }],
  ])('finds no key with %s (401 API key required)', (_case, headers) => {
    expect(readApiKey(headers as Record<string, string>)).toBeNull();
  });
});

describe('hashApiKey and generateApiKey (D20)', () => {
  it('hashes with SHA-256, hex', () => {
    // The FIPS 180-2 test vector for "abc".
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('svc_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('svc_x')).not.toBe(hashApiKey('svc_y'));
  });

  it('makes keys with the prefix and 64 hex characters of randomness, never twice the same', () => {
    expect(API_KEY_PREFIX).toBe('svc_');
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^svc_[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(readApiKey({ authorization: `Bearer ${a}` })).toBe(a);
  });
});
