import { BadRequestException } from '@nestjs/common';

import { UpdateFolderDto } from '../../folders/folders.dto';
import { asBody, MAX_LENGTH, optionalString, patchText, requiredText } from './body';
import { validateBody } from './validate-body';

/** The 400 message `fn` throws, or null when it returns. */
function error400(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    expect((error as BadRequestException).getStatus()).toBe(400);
    return (error as BadRequestException).message;
  }
}

describe('MAX_LENGTH (D8)', () => {
  it('is title 500, name 255, description and content 100,000', () => {
    expect(MAX_LENGTH).toEqual({ title: 500, name: 255, description: 100_000, content: 100_000 });
  });
});

describe('asBody and has (D7)', () => {
  it('keeps an object as it is', () => {
    const body = { a: 1 };
    expect(asBody(body)).toBe(body);
  });

  it.each([[undefined], [null], ['x'], [1], [true], [[1, 2]]])('reads %p as {}', (value) => {
    expect(asBody(value)).toEqual({});
  });

  it('tells a field sent (even as null) from a field left out, ignoring inherited and unknown keys', async () => {
    const patch = await validateBody(UpdateFolderDto, JSON.parse('{"icon": null, "position": 0, "__proto__": {"name": "x"}, "toString": 1, "other": 2}'));
    expect(Object.entries(patch).filter(([, v]) => v !== undefined)).toEqual([
      ['icon', null],
      ['position', 0],
    ]);
  });
});

describe('requiredText (D8, create)', () => {
  it.each([
    ['Ship it', 'Ship it'],
    ['  Ship it \n', 'Ship it'],
    ['\tx\t', 'x'],
    ['a'.repeat(255), 'a'.repeat(255)],
    ['  ' + 'a'.repeat(255) + '  ', 'a'.repeat(255)], // checked after trimming
  ])('accepts %p as %p', (value, expected) => {
    expect(requiredText('name', value, 255)).toBe(expected);
  });

  it.each([
    ['missing', {}],
    ['null', { name: null }],
    ['a number (wrong type reads as missing)', { name: 12 }],
    ['a boolean', { name: true }],
    ['an object', { name: { x: 1 } }],
    ['an array', { name: ['x'] }],
    ['empty', { name: '' }],
    ['blank', { name: ' \n\t ' }],
    ['non-breaking spaces only', { name: '\u00a0\u00a0' }],
  ])('answers `<field> is required` when %s', (_case, body) => {
    expect(error400(() => requiredText('name', (body as { name?: unknown }).name, 255))).toBe('name is required');
  });

  it('answers `<field> must be at most <max> characters` past the limit, per field', () => {
    expect(error400(() => requiredText('name', 'a'.repeat(256), MAX_LENGTH.name))).toBe('name must be at most 255 characters');
    expect(error400(() => requiredText('title', 'a'.repeat(501), MAX_LENGTH.title))).toBe('title must be at most 500 characters');
    expect(error400(() => requiredText('content', 'a'.repeat(100_001), MAX_LENGTH.content))).toBe('content must be at most 100000 characters');
    expect(requiredText('title', 'a'.repeat(500), MAX_LENGTH.title)).toHaveLength(500);
  });
});

describe('patchText (D8, update)', () => {
  it('is undefined when the field is not sent', () => {
    expect(patchText('title', undefined, 500)).toBeUndefined();
    expect(patchText('title', ({ other: 'x' } as { title?: unknown }).title, 500)).toBeUndefined();
  });

  it('trims the value', () => {
    expect(patchText('title', '  New  ', 500)).toBe('New');
  });

  it.each([
    ['null', null, 'title must be a string'],
    ['a number', 12, 'title must be a string'],
    ['a boolean', false, 'title must be a string'],
    ['an object', {}, 'title must be a string'],
    ['empty', '', 'title cannot be empty'],
    ['blank', '   ', 'title cannot be empty'],
    ['too long', 'a'.repeat(501), 'title must be at most 500 characters'],
  ])('answers 400 when %s', (_case, value, message) => {
    expect(error400(() => patchText('title', value, MAX_LENGTH.title))).toBe(message);
  });

  it('names the field in its messages', () => {
    expect(error400(() => patchText('name', ' ', MAX_LENGTH.name))).toBe('name cannot be empty');
  });
});

describe('optionalString (icon, color)', () => {
  it('is undefined when not sent, null when sent as null, else the string as sent', () => {
    expect(optionalString('color', undefined)).toBeUndefined();
    expect(optionalString('color', null)).toBeNull();
    expect(optionalString('color', 'red')).toBe('red');
    expect(optionalString('color', '')).toBe('');
    expect(optionalString('color', 'a'.repeat(255))).toHaveLength(255);
  });

  it.each([
    [12, 'color must be a string'],
    [true, 'color must be a string'],
    [{}, 'color must be a string'],
    [['red'], 'color must be a string'],
    ['a'.repeat(256), 'color must be at most 255 characters'],
  ])('answers 400 for %p', (value, message) => {
    expect(error400(() => optionalString('color', value))).toBe(message);
  });
});

describe('IsPosition (position, D25)', () => {
  const position = async (value: unknown) => (await validateBody(UpdateFolderDto, { position: value })).position;

  it('is undefined when not sent, else the integer', async () => {
    expect((await validateBody(UpdateFolderDto, {})).position).toBeUndefined();
    expect(await position(3)).toBe(3);
    expect(await position(0)).toBe(0);
    expect(await position(-4)).toBe(-4);
    expect(await position(2147483647)).toBe(2147483647);
  });

  it.each([[1.5], ['3'], [null], [true], [2147483648], [-2147483648 - 1], [Number.MAX_SAFE_INTEGER + 1], [NaN], [Infinity], [{}]])(
    'answers 400 `position must be an integer` for %p',
    async (value) => {
      await expect(position(value)).rejects.toThrow(new BadRequestException('position must be an integer'));
    },
  );
});
