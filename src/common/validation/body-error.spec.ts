import fc from 'fast-check';

import { BODY_MESSAGES, deferredBodyError, MAX_BODY_DEPTH, nestedDeeperThan, parseJsonBody } from './body-error';

/** Unit spec of the JSON body rules of D7 and of the nesting depth. */

/** `depth` levels of arrays (or objects, or both alternating) around a scalar. */
const nested = (depth: number, kind: 'array' | 'object' | 'mixed'): unknown => {
  let value: unknown = 'x';
  for (let level = 1; level <= depth; level++) value = kind === 'array' || (kind === 'mixed' && level % 2) ? [value] : { k: value };
  return value;
};

describe('nestedDeeperThan', () => {
  it.each([
    ['a scalar', 'x', 0, false],
    ['{}', {}, 0, true],
    ['{}', {}, 1, false],
    ['[[]]', [[]], 1, true],
    ['[[]]', [[]], 2, false],
    ['a deep branch beside shallow ones', { a: 1, b: [1, 2], c: { d: { e: [] } } }, 3, true],
    ['the same', { a: 1, b: [1, 2], c: { d: { e: [] } } }, 4, false],
  ])('%s within %#', (_case, value, max, expected) => {
    expect(nestedDeeperThan(value, max as number)).toBe(expected);
  });

  it('is deeper than max exactly when the depth exceeds it, for arrays, objects and both (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array'>,
        (depth, max, kind) => {
          expect(nestedDeeperThan(nested(depth, kind), max)).toBe(depth > max);
        },
      ),
    );
  });
});

describe('parseJsonBody', () => {
  const errorOf = (text: string) => {
    const request = {};
    const body = parseJsonBody(request, text);
    const error = deferredBodyError(request);
    return error ? { status: error.getStatus(), message: (error.getResponse() as { message: string }).message, body } : { body };
  };

  it(`accepts ${MAX_BODY_DEPTH} levels and refuses ${MAX_BODY_DEPTH + 1}, counting the body object`, () => {
    expect(errorOf(JSON.stringify({ a: nested(MAX_BODY_DEPTH - 1, 'mixed') }))).toEqual({ body: { a: nested(MAX_BODY_DEPTH - 1, 'mixed') } });
    expect(errorOf(JSON.stringify({ a: nested(MAX_BODY_DEPTH, 'array') }))).toEqual({ status: 400, message: BODY_MESSAGES.tooDeep, body: undefined });
  });

  it('refuses 100,000 levels without exhausting the stack', () => {
    expect(errorOf('{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}')).toMatchObject({ status: 400, message: BODY_MESSAGES.tooDeep });
  });

  it.each([
    ['', { body: undefined }],
    ['{"a":', { status: 400, message: BODY_MESSAGES.invalidJson, body: undefined }],
    ['[' + '['.repeat(40) + ']'.repeat(40) + ']', { status: 400, message: BODY_MESSAGES.notObject, body: undefined }],
    ['{"title":"t"}', { body: { title: 't' } }],
  ])('%j', (text, expected) => {
    expect(errorOf(text)).toEqual(expected);
  });
});
