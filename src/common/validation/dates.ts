import { BadRequestException } from '@nestjs/common';

/** The example timestamp of the D11 error message (and the output format of convention 2). */
export const DATE_EXAMPLE = '2025-01-15T09:30:00.000Z';

// D11: date, or date + T + HH:mm[:ss[.f{1,6}]], then Z, ±HH:MM or nothing (UTC).
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** D11: the forms of a date, as an OpenAPI `pattern` (impossible dates such as `2025-02-30` match it but are refused). */
export const DATE_PATTERN = ISO_DATE.source;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Parses a D11 date string: `YYYY-MM-DD`, `YYYY-MM-DDTHH:mm`, `YYYY-MM-DDTHH:mm:ss`,
 * with 1 to 6 fractional digits, each with `Z`, `±HH:MM` or nothing (UTC).
 * Returns the instant, or null when the text has another form or names an
 * impossible date or time (`2025-02-30`, `25:00`, offset `+24:00`), or when the
 * instant falls outside years 1 to 9999 in UTC. Digits beyond milliseconds are
 * dropped (responses carry milliseconds: convention 2).
 */
export function parseIsoDate(text: string): Date | null {
  const m = ISO_DATE.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day > monthDays || hour > 23 || minute > 59 || second > 59) return null;

  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z') {
    const [offHours, offMinutes] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (offHours > 23 || offMinutes > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }

  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  date.setTime(date.getTime() - offsetMinutes * 60_000);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return null;
  return date;
}

/** Convention 2: `YYYY-MM-DDTHH:mm:ss.sssZ` (years 1 to 9999). */
export function formatTimestamp(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}Z`
  );
}

/** D11: the 400 message for an unparsable `field`. */
export function invalidDateMessage(field: string): string {
  return `Invalid ${field} format. Use ISO 8601 UTC, e.g. ${DATE_EXAMPLE}`;
}

/**
 * A date field of a body (D11), as sent (undefined when not sent): undefined
 * when not sent; null when sent as `null` or `""` (no date on create, removal
 * on update); else the instant as a convention-2 string, ready for a
 * `timestamptz` parameter. Anything else (another string form, an impossible
 * date, a number): 400 `Invalid <field> format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z`.
 */
export function optionalDate(field: string, value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const date = typeof value === 'string' ? parseIsoDate(value) : null;
  if (!date) throw new BadRequestException(invalidDateMessage(field));
  return formatTimestamp(date);
}
