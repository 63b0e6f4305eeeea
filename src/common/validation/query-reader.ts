import { BadRequestException } from '@nestjs/common';

/*
 * Reading a query string given as ordered pairs (query-pairs.ts): the rules
 * every paged read shares (List tasks D22/D34, the events feed D37): the
 * `limit` bounds, the value cap of multi-valued parameters and the messages
 * of the D34 templates. Pure: no I/O.
 */

/** D22: default and bounds of `limit`. */
export const PAGE_LIMIT = { default: 50, min: 1, max: 100 } as const;

/** D22: the message of a `limit` out of PAGE_LIMIT. */
export const LIMIT_MESSAGE = `limit must be an integer between ${PAGE_LIMIT.min} and ${PAGE_LIMIT.max}`;

/** D34: most values a multi-valued parameter takes (after splitting commas, duplicates counted). */
export const MAX_VALUES = 100;

/** Messages of the D34 templates, for a parameter `name`. */
export const unknownParameterMessage = (name: string) => `Unknown query parameter: ${name}`;
export const onlyOnceMessage = (name: string) => `${name} must be given only once`;
export const tooManyValuesMessage = (name: string) => `${name} accepts at most ${MAX_VALUES} values`;

/** A raw query string as ordered name/value pairs (repeated names kept). */
export type QueryPairs = ReadonlyArray<readonly [string, string]>;

const bad = (message: string) => new BadRequestException(message);

/** Reads the pairs of one request; each method throws the D34 400 for its parameter (List tasks and the events feed, D37). */
export class QueryReader {
  private readonly byName = new Map<string, string[]>();

  constructor(pairs: QueryPairs) {
    for (const [name, value] of pairs) {
      const values = this.byName.get(name);
      if (values) values.push(value);
      else this.byName.set(name, [value]);
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** A single-valued parameter: undefined when absent; `<name> must be given only once`; `parse` null → `message`. */
  single<T>(name: string, parse: (value: string) => T | null, message: string): T | undefined {
    const values = this.byName.get(name);
    if (!values) return undefined;
    if (values.length > 1) throw bad(onlyOnceMessage(name));
    const parsed = parse(values[0]);
    if (parsed === null) throw bad(message);
    return parsed;
  }

  /** A multi-valued parameter (comma lists, repeated, or both): null when absent; over 100 values; any bad item → `message`. Duplicates collapse. */
  multi<T>(name: string, parse: (value: string) => T | null, message: string): T[] | null {
    const values = this.byName.get(name);
    if (!values) return null;
    const items = values.flatMap((v) => v.split(','));
    if (items.length > MAX_VALUES) throw bad(tooManyValuesMessage(name));
    const parsed: T[] = [];
    for (const item of items) {
      const value = parse(item);
      if (value === null) throw bad(message);
      if (!parsed.includes(value)) parsed.push(value);
    }
    return parsed;
  }
}

/** D22: an integer of ASCII digits within 2^53, else null. */
export function integer(value: string): number | null {
  if (!/^[0-9]+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}
