import { BadRequestException } from '@nestjs/common';

import { formatTimestamp, optionalDate, parseIsoDate } from './dates';

const iso = (text: string) => {
  const date = parseIsoDate(text);
  return date ? formatTimestamp(date) : null;
};

describe('parseIsoDate (D11)', () => {
  it.each([
    ['2025-01-15', '2025-01-15T00:00:00.000Z'],
    ['2025-01-15T09:30', '2025-01-15T09:30:00.000Z'],
    ['2025-01-15T09:30:12', '2025-01-15T09:30:12.000Z'],
    ['2025-01-15T09:30:12.5', '2025-01-15T09:30:12.500Z'],
    ['2025-01-15T09:30:12.123', '2025-01-15T09:30:12.123Z'],
    ['2025-01-15T09:30:12.123456', '2025-01-15T09:30:12.123Z'],
    ['2025-01-15T09:30:00.000Z', '2025-01-15T09:30:00.000Z'],
    ['2025-01-15Z', '2025-01-15T00:00:00.000Z'],
    ['2025-01-15T09:30Z', '2025-01-15T09:30:00.000Z'],
    ['2025-01-15T09:30:00+02:00', '2025-01-15T07:30:00.000Z'],
    ['2025-01-15T09:30:00.250-05:30', '2025-01-15T15:00:00.250Z'],
    ['2025-01-01T01:00+03:00', '2024-12-31T22:00:00.000Z'],
    ['2025-01-15+02:00', '2025-01-14T22:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T23:59:59.999Z', '2000-02-29T23:59:59.999Z'],
    ['0050-06-01', '0050-06-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ])('accepts %s as %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it.each([
    '2025-02-30',
    '2025-02-29',
    '1900-02-29',
    '2025-13-01',
    '2025-00-10',
    '2025-01-00',
    '2025-04-31',
    '2025-01-15T25:00',
    '2025-01-15T24:00',
    '2025-01-15T12:60',
    '2025-01-15T12:30:60',
    '2025-01-15T09:30:00.1234567Z',
    '2025-01-15T09:30:00.Z',
    '2025-01-15T09',
    '2025-01-15 09:30',
    '2025-01-15t09:30',
    '2025-01-15T09:30z',
    '2025-01-15T09:30+0200',
    '2025-01-15T09:30+02',
    '2025-01-15T09:30+24:00',
    '2025-01-15T09:30+02:60',
    '25-01-15',
    '2025-1-15',
    '20250115',
    '0000-01-01',
    '0001-01-01T00:00+01:00',
    '9999-12-31T23:00-02:00',
    'tomorrow',
    '',
    ' 2025-01-15',
    '2025-01-15 ',
    '1736933400000',
  ])('rejects %j', (text) => {
    expect(parseIsoDate(text)).toBeNull();
  });
});

describe('optionalDate (D11)', () => {
  const message = 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z';

  it('is undefined when not sent, null for null and ""', () => {
    expect(optionalDate('due_date', undefined)).toBeUndefined();
    expect(optionalDate('due_date', null)).toBeNull();
    expect(optionalDate('due_date', '')).toBeNull();
  });

  it('normalises to convention 2', () => {
    expect(optionalDate('due_date', '2025-03-01T10:00+01:00')).toBe('2025-03-01T09:00:00.000Z');
  });

  it.each([[1736933400000], [true], [{}], [['2025-01-15']], ['2025-02-30']])('rejects %j with the D11 message', (value) => {
    expect(() => optionalDate('due_date', value)).toThrow(new BadRequestException(message));
  });

  it('names the field in the message', () => {
    expect(() => optionalDate('start_date', 'x')).toThrow('Invalid start_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z');
  });
});
