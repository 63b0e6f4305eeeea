import { BadRequestException } from '@nestjs/common';
import { asBody, has, MAX_LENGTH, optionalInteger, optionalString, patchText, requiredText } from './body';

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

  it('tells a field sent (even as null or undefined) from a field left out, ignoring inherited keys', () => {
    const body = { a: null, b: undefined, c: 0 };
    expect(has(body, 'a')).toBe(true);
    expect(has(body, 'b')).toBe(true);
    expect(has(body, 'c')).toBe(true);
    expect(has(body, 'd')).toBe(false);
    expect(has(body, 'toString')).toBe(false);
    expect(has(body, '__proto__')).toBe(false);
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
    expect(requiredText({ name: value }, 'name', 255)).toBe(expected);
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
    expect(error400(() => requiredText(body, 'name', 255))).toBe('name is required');
  });

  it('answers `<field> must be at most <max> characters` past the limit, per field', () => {
    expect(error400(() => requiredText({ name: 'a'.repeat(256) }, 'name', MAX_LENGTH.name))).toBe('name must be at most 255 characters');
    expect(error400(() => requiredText({ title: 'a'.repeat(501) }, 'title', MAX_LENGTH.title))).toBe('title must be at most 500 characters');
    expect(error400(() => requiredText({ content: 'a'.repeat(100_001) }, 'content', MAX_LENGTH.content))).toBe(
      'content must be at most 100000 characters',
    );
    expect(requiredText({ title: 'a'.repeat(500) }, 'title', MAX_LENGTH.title)).toHaveLength(500);
  });
});

describe('patchText (D8, update)', () => {
  it('is undefined when the field is not sent', () => {
    expect(patchText({}, 'title', 500)).toBeUndefined();
    expect(patchText({ other: 'x' }, 'title', 500)).toBeUndefined();
  });

  it('trims the value', () => {
    expect(patchText({ title: '  New  ' }, 'title', 500)).toBe('New');
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
    expect(error400(() => patchText({ title: value }, 'title', MAX_LENGTH.title))).toBe(message);
  });

  it('names the field in its messages', () => {
    expect(error400(() => patchText({ name: ' ' }, 'name', MAX_LENGTH.name))).toBe('name cannot be empty');
  });
});

describe('optionalString (icon, color)', () => {
  it('is undefined when not sent, null when sent as null, else the string as sent', () => {
    expect(optionalString({}, 'color')).toBeUndefined();
    expect(optionalString({ color: null }, 'color')).toBeNull();
    expect(optionalString({ color: 'red' }, 'color')).toBe('red');
    expect(optionalString({ color: '' }, 'color')).toBe('');
    expect(optionalString({ color: 'a'.repeat(255) }, 'color')).toHaveLength(255);
  });

  it.each([
    [12, 'color must be a string'],
    [true, 'color must be a string'],
    [{}, 'color must be a string'],
    [['red'], 'color must be a string'],
    ['a'.repeat(256), 'color must be at most 255 characters'],
  ])('answers 400 for %p', (value, message) => {
    expect(error400(() => optionalString({ color: value }, 'color'))).toBe(message);
  });
});

describe('optionalInteger (position, D25)', () => {
  it('is undefined when not sent, else the integer', () => {
    expect(optionalInteger({}, 'position')).toBeUndefined();
    expect(optionalInteger({ position: 3 }, 'position')).toBe(3);
    expect(optionalInteger({ position: 0 }, 'position')).toBe(0);
    expect(optionalInteger({ position: -4 }, 'position')).toBe(-4);
    expect(optionalInteger({ position: 2147483647 }, 'position')).toBe(2147483647);
  });

  it.each([[1.5], ['3'], [null], [true], [2147483648], [-2147483648 - 1], [Number.MAX_SAFE_INTEGER + 1], [NaN], [Infinity], [{}]])(
    'answers 400 `position must be an integer` for %p',
    (value) => {
      expect(error400(() => optionalInteger({ position: value }, 'position'))).toBe('position must be an integer');
    },
  );
});
