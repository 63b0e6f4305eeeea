import { J, type JsonSql } from './json-sql';

/*
 * Field tables: one row per key of a resource's response object, in response
 * order, with the SQL that renders it and, when creates and updates write it,
 * the column behind it. A repository builds its select list (or JSON), its
 * insert and update column lists and its update event's `changes` from its
 * table; the fixture loader writes the same columns with the same create
 * defaults; a constant of type FieldsMatch makes the compiler compare the
 * table's keys with the response DTO's.
 */

/**
 * How creates and updates write a column from the body field of the same
 * name: its SQL type and, for a create, the SQL of the value stored when the
 * body leaves the field out or sends null, over the workspace id `ws`.
 */
export interface ColumnWrite<C extends string = string> {
  column: C;
  cast: string;
  createDefault?: (ws: string) => string;
  /**
   * The create default reads the rows written before (positions: max + 1):
   * a writer of many rows writes them one after another, in order, so that
   * each sees the ones before it (a statement does not see its own rows).
   */
  ordered?: true;
}

/** One key of a response object: the shapes it appears in (left out: the only one) and the column behind it when creates and updates write one. */
export interface FieldRow<Shape extends string = string, C extends string = string> {
  key: string;
  shapes?: readonly Shape[];
  write?: ColumnWrite<C>;
}

/** A field of a resource answered as rows the driver returns: `sql` renders it over the statement's FROM (left out: the column named as the key). */
export interface ColumnField<C extends string = string> extends FieldRow<never, C> {
  sql?: string;
}

/** A field of a resource answered as compact JSON built by PostgreSQL (json-sql.ts): `json` renders its value. */
export interface JsonField<C extends string = string> extends FieldRow<never, C> {
  json: JsonSql;
}

/** The object of `fields`, keys in table order, as compact JSON text. */
export function jsonObjectSql(fields: readonly JsonField[]): JsonSql {
  return J.object(fields.map((f) => [f.key, f.json] as const));
}

/** The keys `Fields` gives shape `S` (rows without shapes are in every shape). */
type KeysOf<Fields extends readonly FieldRow[], S extends string> = Fields[number] extends infer F
  ? F extends { key: infer K; shapes: readonly (infer Shape)[] }
    ? S extends Shape
      ? K
      : never
    : F extends { key: infer K }
      ? K
      : never
  : never;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * `true` when the keys of `Fields` (of shape `S`) are exactly those of `Dto`,
 * else `false`: a constant of this type initialised to `true` fails to compile
 * when a field is added to one and not the other.
 */
export type FieldsMatch<Fields extends readonly FieldRow[], Dto, S extends string = never> = Same<KeysOf<Fields, S>, keyof Dto>;

/** The columns `Fields` writes. */
export type WriteColumnOf<Fields extends readonly FieldRow[]> = Fields[number] extends infer F ? (F extends { write: { column: infer C } } ? C : never) : never;

/** `true` when `Fields` writes exactly the keys of `Dto` (an update body): see FieldsMatch. */
export type WritesMatch<Fields extends readonly FieldRow[], Dto> = Same<WriteColumnOf<Fields>, keyof Dto>;

/** The columns creates and updates write (the rows of `fields` with a `write`), in table order. */
export function writeColumns<C extends string>(fields: readonly FieldRow<string, C>[]): readonly ColumnWrite<C>[] {
  return fields.flatMap((f) => (f.write ? [f.write] : []));
}

/** What a repository answering rows uses of its field table. */
export interface ColumnTable<C extends string> {
  /** The select list: `sql AS key` for each field, in response order (the driver's row keeps that order). */
  select: string;
  /** The columns creates and updates write, in table order (an update's SET order). */
  writes: readonly ColumnWrite<C>[];
  /** Their names. */
  columns: readonly C[];
}

/** The ColumnTable of `fields`, whose written columns are `C`. */
export function columnTable<C extends string>(fields: readonly ColumnField<C>[]): ColumnTable<C> {
  const writes = writeColumns(fields);
  return { select: selectListSql(fields), writes, columns: writes.map((w) => w.column) };
}

/** The select list of `fields`: `sql AS key` for each, in response order (the driver's row keeps that order). */
export function selectListSql(fields: readonly ColumnField[]): string {
  return fields.map(({ key, sql }) => (sql === undefined || sql === key ? key : `${sql} AS ${key}`)).join(', ');
}

/** D24: the write of a `position` column whose create default is max + 1 over the workspace's rows of `table`, from 1. */
export function positionWrite(table: string): ColumnWrite<'position'> {
  return {
    column: 'position',
    cast: 'int',
    createDefault: (ws) => `(SELECT COALESCE(MAX(position), 0) + 1 FROM ${table} WHERE workspace_id = ${ws})`,
    ordered: true,
  };
}
