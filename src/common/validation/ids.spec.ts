import { BadRequestException } from '@nestjs/common';

import { parseId, PATH_ID_MESSAGES, requireId } from './ids';
import { parsePathIds } from './path-id';

describe('parseId (D5)', () => {
  it.each([
    [12, 12],
    ['12', 12],
    [1, 1],
    ['1', 1],
    ['0012', 12],
    [12.0, 12], // the JSON number 12.0 is the number 12
    [2147483647, 2147483647],
    ['2147483647', 2147483647],
  ])('accepts %p as %p', (value, expected) => {
    expect(parseId(value)).toBe(expected);
  });

  it.each([
    // Well-formed ids that no row can have answer "not found" (D5: never a 500): 0 is that id.
    [0, 0],
    ['0', 0],
    ['2147483648', 0],
    [2147483648, 0],
    ['99999999999999', 0],
    [99999999999999, 0],
    ['99999999999999999999999999', 0],
    [Number.MAX_SAFE_INTEGER + 1, 0],
    [1e21, 0],
  ])('reads the well-formed %p as %p, an id no row has', (value, expected) => {
    expect(parseId(value)).toBe(expected);
  });

  it.each([
    ['12.0'],
    [12.5],
    ['12.5'],
    ['-1'],
    [-1],
    [-12.5],
    [' 12'],
    ['12 '],
    ['+12'],
    ['1e3'],
    ['0x1f'],
    ['1_000'],
    ['١٢'], // non-ASCII digits
    [''],
    [true],
    [false],
    [null],
    [undefined],
    [{}],
    [{ id: 1 }],
    [[1]],
    [NaN],
    [Infinity],
    [-Infinity],
  ])('refuses %p as malformed', (value) => {
    expect(parseId(value)).toBeNull();
  });
});

describe('requireId (D6)', () => {
  it('returns the id', () => {
    expect(requireId('7', 'workspace_id is required')).toBe(7);
    expect(requireId(7, 'workspace_id is required')).toBe(7);
  });

  it.each([['abc'], [null], [undefined], ['-1'], [1.5]])('throws 400 with the given message for %p', (value) => {
    expect(() => requireId(value, 'list_id must be a valid numeric ID')).toThrow(new BadRequestException('list_id must be a valid numeric ID'));
    try {
      requireId(value, 'x');
    } catch (error) {
      expect(error).toBeInstanceOf(BadRequestException);
      expect((error as BadRequestException).getStatus()).toBe(400);
      expect((error as BadRequestException).message).toBe('x');
    }
  });
});

describe('PATH_ID_MESSAGES and parsePathIds (D6)', () => {
  it('has the message of every path id kind', () => {
    expect(PATH_ID_MESSAGES).toEqual({
      workspace: 'Invalid workspace ID',
      folder: 'Invalid folder ID',
      list: 'Invalid list ID',
      task: 'Invalid task ID',
      status: 'Invalid status ID',
      label: 'Invalid label ID',
      webhook: 'Invalid webhook ID',
      comment: 'Invalid comment ID',
      user: 'Invalid user ID',
      api_key: 'Invalid API key ID',
      custom_field: 'Invalid custom field ID',
      attachment: 'Invalid attachment ID',
    });
  });

  it('checks several path ids left to right: the first malformed one answers', () => {
    const both = (params: Record<string, string>) => parsePathIds(params, ['task', 'label']);
    expect(both({ task_id: '7', label_id: '9' })).toEqual([7, 9]);
    expect(() => both({ task_id: 'x', label_id: 'y' })).toThrow(new BadRequestException('Invalid task ID'));
    expect(() => both({ task_id: '7', label_id: 'y' })).toThrow(new BadRequestException('Invalid label ID'));
  });

  it.each(Object.entries(PATH_ID_MESSAGES))('a %s id is parsed, or answers %p when malformed', (kind, message) => {
    const one = (value: string) => parsePathIds({ [`${kind}_id`]: value }, [kind as keyof typeof PATH_ID_MESSAGES])[0];
    expect(one('42')).toBe(42);
    expect(one('0')).toBe(0);
    expect(one('99999999999999')).toBe(0);
    for (const bad of ['abc', '1.5', '-1', '', ' 1']) {
      expect(() => one(bad)).toThrow(new BadRequestException(message));
    }
  });
});
