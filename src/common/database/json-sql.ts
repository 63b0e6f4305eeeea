/**
 * SQL that renders compact JSON as text, byte for byte what `JSON.stringify`
 * would give for the same values (no spaces, keys in the order written).
 * PostgreSQL's json_build_object writes `{"id" : 1, ...}` and costs more per
 * key; string concatenation of already-escaped pieces is cheaper to build and
 * about a tenth smaller on the wire. Every builder takes and returns an SQL
 * expression of type text; values are escaped by `to_json`, never by hand.
 */

/** An SQL expression of type text holding one JSON value. */
export type JsonSql = string;

/** A JSON value built from an SQL expression that may be NULL (then JSON `null`). */
const orNull = (json: JsonSql): JsonSql => `COALESCE(${json}, 'null')`;

/** The `[key, value]` pairs of an object as concatenated text, from its opening brace to its last value. */
const pairsSql = (pairs: readonly (readonly [string, JsonSql])[]): string =>
  pairs.map(([key, value], i) => `'${i === 0 ? '{' : ','}"${key}":' || ${value}`).join(' || ');

/** The JSON builders, by the SQL type they take. */
export const J = {
  /** An integer column or expression that is never NULL. */
  int: (expr: string): JsonSql => `(${expr})::text`,
  /** An integer that may be NULL. */
  intOrNull: (expr: string): JsonSql => orNull(`(${expr})::text`),
  /** A text that is never NULL, as a JSON string. */
  text: (expr: string): JsonSql => `to_json((${expr})::text)::text`,
  /** A text that may be NULL. */
  textOrNull: (expr: string): JsonSql => orNull(`to_json((${expr})::text)::text`),
  /** A timestamptz that is never NULL, in the API's form (api_ts: UTC, milliseconds, `Z`). */
  timestamp: (expr: string): JsonSql => `('"' || api_ts(${expr}) || '"')`,
  /** A timestamptz that may be NULL. */
  timestampOrNull: (expr: string): JsonSql => orNull(`('"' || api_ts(${expr}) || '"')`),
  /** A boolean that is never NULL. */
  bool: (expr: string): JsonSql => `(CASE WHEN ${expr} THEN 'true' ELSE 'false' END)`,
  /** A json or jsonb value (NULL: JSON null), passed through. */
  jsonOrNull: (expr: string): JsonSql => orNull(`(${expr})::text`),

  /** An object of `[key, value]` pairs, keys written as given (fixed identifiers only, never request data). */
  object(pairs: readonly (readonly [string, JsonSql])[]): JsonSql {
    return `(${pairsSql(pairs)} || '}')`;
  },

  /**
   * The start of an object, up to the key `nextKey` whose value follows:
   * `{"a":…,"b":…,"nextKey":`. Completed by `head || value || '}'`, it gives
   * the bytes of object() over the same pairs and `[nextKey, value]`; a head
   * that is the same for many objects is then built once.
   */
  objectHead(pairs: readonly (readonly [string, JsonSql])[], nextKey: string): JsonSql {
    return `(${pairsSql(pairs)} || ',"${nextKey}":')`;
  },

  /**
   * An array of `element` over the rows of `from` (a FROM clause, with its
   * WHERE), in `orderBy` order; `[]` when there are none. An ARRAY subquery
   * joined by array_to_string: a string_agg with ORDER BY set up an aggregate
   * and its sort on every run of the statement (3% of get task's instructions).
   */
  array(element: JsonSql, from: string, orderBy: string): JsonSql {
    return `('[' || array_to_string(ARRAY(SELECT ${element} FROM ${from} ORDER BY ${orderBy}), ',') || ']')`;
  },

  /** An aggregate: `element` (JSON text) of each row of the surrounding query, as one array in `orderBy` order; `[]` when there are none. */
  arrayAgg(element: JsonSql, orderBy: string): JsonSql {
    return `('[' || COALESCE(string_agg(${element}, ',' ORDER BY ${orderBy}), '') || ']')`;
  },
};
