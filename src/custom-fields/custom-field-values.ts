import { BadRequestException } from '@nestjs/common';

import type { SqlParams } from '../common/database/sql-params';
import { nulMessage, tooLongMessage } from '../common/validation/body';
import { formatTimestamp, parseIsoDate } from '../common/validation/dates';
import { parseId } from '../common/validation/ids';
import { fieldAppliesSql, fieldVisibleSql } from './custom-fields.sql';

/*
 * The `custom_fields` of create and update task (D13, D42). At D3 step 7 only the
 * array itself is checked; each element is read and prepared in Node (its text,
 * and what each typed rule needs of it that PostgreSQL does not know: the number
 * pattern, the date's normal form, the people list). The write statement then
 * judges, one element at a time in array order, only the elements whose field
 * applies to the task's list after the write and is visible to the caller
 * (others are ignored and never validated), after D3 step 8 and before step 9:
 * the first bad one answers 400, and nothing is written.
 */

/** D13: longest stored text of a custom-field value, in characters. */
export const CUSTOM_FIELD_VALUE_MAX_LENGTH = 10_000;

const VALUE_FIELD = 'custom_fields value';

/** D13, D42: the answers about `custom_fields` (the OpenAPI document lists them from here). */
export const CUSTOM_FIELD_MESSAGES = {
  notAnArray: 'custom_fields must be an array',
  notAString: 'custom_fields value must be a string or null',
  nul: nulMessage(VALUE_FIELD),
  tooLong: tooLongMessage(VALUE_FIELD, CUSTOM_FIELD_VALUE_MAX_LENGTH),
  /** D42: a value its field's type refuses. */
  typed: (fieldId: number | string, rule: string) => `custom_fields value for field ${fieldId} must be ${rule}`,
} as const;

/** D42: the `<rule>` of each type's message (text never fails). */
export const TYPED_RULES = {
  number: 'a number',
  money: (decimals: number | string) => `a number with at most ${decimals} decimals`,
  date: 'an ISO 8601 date',
  checkbox: 'true or false',
  rating: 'an integer from 0 to 5',
  dropdown: "one of the field's options",
  people: 'a comma-separated list of member user IDs',
} as const;

/** D42: the number pattern (the whole text). */
const NUMBER = /^-?(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
/** D42: the people pattern (the whole text). */
const PEOPLE = /^[1-9][0-9]*(,[1-9][0-9]*)*$/;
/** Largest user id there can be (PostgreSQL `integer`): a larger one is no member. */
const MAX_USER_ID = 2147483647;

/** One element of `custom_fields` with a well-formed id and a `value` key, as Node prepared it. */
export interface CustomFieldElement {
  id: number;
  /** D13's answer when the field applies: an object or array, NUL, over 10,000 characters; else null. */
  error: string | null;
  /** D13's text of the value (a number as Number#toString, a boolean as its JSON text); null clears. */
  text: string | null;
  /** The number pattern's fraction digits (0 without a fraction), or -1 when the text is no number. */
  fraction: number;
  /** The text as a D11 date in the response form, or null when it is none. */
  date: string | null;
  /** The text as people: distinct ids in numeric order, comma-separated; null when it is not that pattern. */
  people: string | null;
}

/** Node's part of the typed rules for the text of a value. */
function prepare(text: string): Pick<CustomFieldElement, 'fraction' | 'date' | 'people'> {
  const number = NUMBER.exec(text);
  const parsed = parseIsoDate(text);
  let people: string | null = null;
  if (PEOPLE.test(text)) {
    const ids = text.split(',').map(Number);
    // Digits past any user id name no member (the rule fails in SQL on the sentinel 0).
    const distinct = [...new Set(ids.map((id) => (id > MAX_USER_ID ? 0 : id)))].sort((a, b) => a - b);
    people = distinct.join(',');
  }
  return { fraction: number ? (number[2]?.length ?? 0) : -1, date: parsed ? formatTimestamp(parsed) : null, people };
}

/**
 * D13 at D3 step 7: undefined when not sent; not an array: 400 `custom_fields must be an array`.
 * Elements that are not objects with a well-formed `id`, or have no `value` key, are dropped;
 * every other element is kept, in array order (duplicates too: each is checked, the last one is stored).
 */
export function parseCustomFieldElements(value: unknown): CustomFieldElement[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new BadRequestException(CUSTOM_FIELD_MESSAGES.notAnArray);
  const out: CustomFieldElement[] = [];
  for (const element of value) {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) continue;
    const entry = element as Record<string, unknown>;
    const id = parseId(entry.id);
    if (!id || !Object.hasOwn(entry, 'value')) continue;
    const raw = entry.value;
    const none = { fraction: -1, date: null, people: null };
    let text: string | null = null;
    let error: string | null = null;
    if (raw === null) text = null;
    else if (typeof raw === 'string') text = raw;
    // D42: ECMAScript's Number#toString (5.0 → "5", 1e2 → "100", -0 → "0"); JSON numbers are finite.
    else if (typeof raw === 'number') text = Object.is(raw, -0) ? '0' : String(raw);
    else if (typeof raw === 'boolean') text = String(raw);
    else error = CUSTOM_FIELD_MESSAGES.notAString;
    if (text !== null && text.includes('\u0000')) error = CUSTOM_FIELD_MESSAGES.nul;
    else if (text !== null && text.length > CUSTOM_FIELD_VALUE_MAX_LENGTH) error = CUSTOM_FIELD_MESSAGES.tooLong;
    out.push(error ? { id, error, text: null, ...none } : { id, error: null, text, ...(text === null ? none : prepare(text)) });
  }
  return out;
}

/** SQL expressions of where a task is written: its workspace, list and that list's folder. */
export interface PlaceSql {
  workspace: string;
  list: string;
  folder: string;
}

/** What the statement found wrong with the first bad applicable element, or nothing (all null). */
export interface CustomFieldVerdict {
  cf_bad_id: number | null;
  /** D13's message, when that is what failed. */
  cf_bad_error: string | null;
  /** Else the typed `<rule>`. */
  cf_bad_rule: string | null;
}

/** The select list of a write statement's verdict columns (over CTE `cf_bad`). */
export const CUSTOM_FIELD_VERDICT_SQL = `(SELECT id FROM cf_bad) AS cf_bad_id, (SELECT error FROM cf_bad) AS cf_bad_error, (SELECT rule FROM cf_bad) AS cf_bad_rule`;

/** The verdict columns of a statement that judged no values. */
export const NO_CUSTOM_FIELD_VERDICT_SQL = `NULL::int AS cf_bad_id, NULL::text AS cf_bad_error, NULL::text AS cf_bad_rule`;

/** Throws the 400 of a verdict with a bad element (D13's message, else D42's typed one). */
export function throwCustomFieldVerdict(verdict: CustomFieldVerdict): void {
  if (verdict.cf_bad_id === null) return;
  throw new BadRequestException(verdict.cf_bad_error ?? CUSTOM_FIELD_MESSAGES.typed(verdict.cf_bad_id, verdict.cf_bad_rule!));
}

/**
 * CTEs judging `elements` for a task written at `place` by user `user` (placeholders):
 * `cf_judged` the applicable, visible elements with their failure and the value to
 * store; `cf_bad` the first failing one in array order (D42); `cf_input` one entry per
 * field, the last one sent (`value` null: clear). A write must not happen when
 * `cf_bad` has a row.
 */
export function judgeCustomFieldsCtes(p: SqlParams, elements: CustomFieldElement[], place: PlaceSql, user: string): string[] {
  const ids = p.add(
    elements.map((e) => e.id),
    'int[]',
  );
  const errors = p.add(
    elements.map((e) => e.error),
    'text[]',
  );
  const texts = p.add(
    elements.map((e) => e.text),
    'text[]',
  );
  const fractions = p.add(
    elements.map((e) => e.fraction),
    'int[]',
  );
  const dates = p.add(
    elements.map((e) => e.date),
    'text[]',
  );
  const people = p.add(
    elements.map((e) => e.people),
    'text[]',
  );
  const R = TYPED_RULES;
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  // The money rule around its decimals, which PostgreSQL reads from the field's config (a config without them: the number rule).
  const [moneyBefore, moneyAfter] = R.money('\u0001').split('\u0001');
  const decimals = `CASE WHEN jsonb_typeof(f.config -> 'decimals') = 'number' THEN (f.config ->> 'decimals')::numeric END`;
  const options = `(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(f.config -> 'options') = 'array' THEN f.config -> 'options' END))`;
  const members = `ARRAY(SELECT m.user_id FROM workspace_members m WHERE m.workspace_id = ${place.workspace})`;
  // D42's table; `e.text` is not null and not "" here (null clears, "" clears but for text).
  const rule = `CASE f.type
      WHEN 'number' THEN CASE WHEN e.fraction < 0 THEN ${lit(R.number)} END
      WHEN 'money' THEN CASE WHEN e.fraction < 0 OR e.fraction > ${decimals}
                             THEN COALESCE(${lit(moneyBefore)} || (${decimals})::text || ${lit(moneyAfter)}, ${lit(R.number)}) END
      WHEN 'date' THEN CASE WHEN e.date IS NULL THEN ${lit(R.date)} END
      WHEN 'checkbox' THEN CASE WHEN e.text NOT IN ('true', 'false') THEN ${lit(R.checkbox)} END
      WHEN 'rating' THEN CASE WHEN e.text NOT IN ('0', '1', '2', '3', '4', '5') THEN ${lit(R.rating)} END
      WHEN 'dropdown' THEN CASE WHEN NOT COALESCE(e.text IN ${options}, false) THEN ${lit(R.dropdown)} END
      WHEN 'people' THEN CASE WHEN e.people IS NULL OR NOT string_to_array(e.people, ',')::int[] <@ ${members} THEN ${lit(R.people)} END
    END`;
  return [
    `cf_elements AS MATERIALIZED (
       SELECT x.* FROM unnest(${ids}, ${errors}, ${texts}, ${fractions}, ${dates}, ${people})
                       WITH ORDINALITY AS x(id, error, text, fraction, date, people, ord))`,
    `cf_judged AS MATERIALIZED (
       SELECT e.ord, e.id, e.error,
              CASE WHEN e.error IS NULL AND e.text IS NOT NULL AND (e.text <> '' OR f.type = 'text')
                   THEN ${rule} END AS rule,
              CASE WHEN e.text IS NULL OR (e.text = '' AND f.type <> 'text') THEN NULL
                   WHEN f.type = 'date' THEN e.date WHEN f.type = 'people' THEN e.people ELSE e.text END AS value
         FROM cf_elements e JOIN custom_fields f ON f.id = e.id
        WHERE f.workspace_id = ${place.workspace}
          AND ${fieldAppliesSql('f', place.list, place.folder)}
          AND ${fieldVisibleSql('f', user)}
        -- A definition update in progress (options removed, say) is waited for, and its result judged against.
        FOR SHARE OF f)`,
    `cf_bad AS MATERIALIZED (SELECT j.id, j.error, j.rule FROM cf_judged j WHERE j.error IS NOT NULL OR j.rule IS NOT NULL ORDER BY j.ord LIMIT 1)`,
    `cf_input AS MATERIALIZED (SELECT DISTINCT ON (j.id) j.id, j.value FROM cf_judged j ORDER BY j.id, j.ord DESC)`,
  ];
}

/**
 * D13: CTEs writing the judged values (`cf_input`) for the task of CTE `taskCte` in workspace
 * `ws`: anything but null upserts the value, and with `clears` (an existing task) null deletes it
 * (one entry per field: disjoint rows). Without `clears` (a task this statement creates) there is
 * nothing to replace, so the values are plain inserts (an upsert's speculative insert costs more).
 * The task CTE is empty when a check failed or `cf_bad` has a row, so nothing is written then.
 */
export function writeCustomFieldsCtes(taskCte: string, ws: string, clears: boolean): string[] {
  const clear = `cf_clear AS (DELETE FROM task_custom_field_values v USING cf_input, ${taskCte}
                   WHERE v.task_id = ${taskCte}.id AND v.field_id = cf_input.id AND cf_input.value IS NULL
                   RETURNING v.task_id)`;
  const set = `cf_set AS (INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value)
                 SELECT ${taskCte}.id, cf_input.id, ${ws}, cf_input.value FROM cf_input, ${taskCte}
                  WHERE cf_input.value IS NOT NULL${clears ? '\n                 ON CONFLICT (task_id, field_id) DO UPDATE SET value = EXCLUDED.value' : ''}
                 RETURNING task_id, field_id, value)`;
  return clears ? [clear, set] : [set];
}
