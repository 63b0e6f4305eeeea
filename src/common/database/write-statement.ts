import type { EntityManager } from 'typeorm';

import type { ColumnTable, ColumnWrite } from './field-table';
import type { Db } from './request-db';
import { SqlParams } from './sql-params';

/*
 * WriteStatement: the one way a write reaches PostgreSQL (issue 33). A write is
 * ONE statement, a chain of CTEs in the order the builder gives them:
 *
 *   access   the caller's access row (reads, no locks)
 *   lock     referenced rows, share- or update-locked (SELECT ... FOR KEY SHARE ...)
 *   check    what the write needs to hold (reads)
 *   write    INSERT / UPDATE / DELETE ... RETURNING
 *   event    D37's outbox CTEs (events.sql.ts), always last
 *
 * The builder drains every lock and write CTE before the event's advisory lock
 * (the event lock is the statement's last wait): locks first, in LOCK_ORDER of
 * their tables, then writes in the order declared. A caller names no drain list and
 * cannot add a CTE once the event is declared. A write declares its event
 * (`.event(...)`) or why it has none (`.noEvent(reason)`): only then can it
 * `.select(...)` its answer, and only a selected chain is a statement (Built),
 * so a write without either does not compile.
 *
 * Values never enter the text: `w.arg(input => value, cast)` gives a placeholder
 * and remembers how to read the value from the statement's input. The text is
 * built once per shape (`shape(input)`: a short key of everything the text
 * depends on, such as which fields a patch sends) and kept; a call then only
 * reads its values, so a write costs no string building and its text is the
 * same string object each time (the prepared-statement name is cached by it).
 */

/** Where a write runs: a request's Db (its `rows`), or a TypeORM manager inside a service's transaction. */
export type WriteDb = Db | Pick<EntityManager, 'query'>;

/** Placeholders of a statement's input: each reads one value of the input `I` when the statement runs. */
export class Args<I> {
  /** @internal the readers, in placeholder order */
  readonly readers: ((input: I) => unknown)[] = [];

  /** `$n` (with `::cast` when given) for the value `read(input)`. */
  arg(read: (input: I) => unknown, cast?: string): string {
    this.readers.push(read);
    return `$${this.readers.length}${cast ? `::${cast}` : ''}`;
  }
}

/**
 * Tables in the one order a statement's referenced-row locks are drained (a lock CTE
 * names its table). Two writes that lock rows of several tables take them in this order.
 */
export const LOCK_ORDER = [
  'users',
  'workspaces',
  'workspace_members',
  'folders',
  'lists',
  'statuses',
  'tasks',
  'labels',
  'custom_fields',
  'comments',
  'attachments',
  'webhooks',
] as const;

/** A table a lock CTE locks rows of. */
export type LockTable = (typeof LOCK_ORDER)[number];

/** What a CTE of the chain does (see the file comment). */
export type CteKind = 'access' | 'lock' | 'check' | 'write';

interface Cte {
  name: string;
  kind: CteKind;
  sql: string;
  table?: LockTable;
}

/**
 * The event a write records (D37), rendered by events.sql.ts: its CTEs, given the
 * names of the statement's CTEs to drain first. `reads` are the CTEs its FROM reads
 * (already run to completion when it reads them: not drained twice).
 */
export interface StatementEvent<I> {
  readonly reads: readonly string[];
  ctes(args: Args<I>, drain: readonly string[]): string[];
}

/** A write's chain, open: CTEs are added, then its event (or why it has none) is declared. */
export class WriteChain<I> {
  /** @internal */
  readonly parts: Cte[] = [];

  constructor(
    readonly args: Args<I>,
    /** The input the shape is built from: decide the text's shape from it, never copy its values into the text. */
    readonly sample: I,
  ) {}

  /** `$n` for `read(input)` (Args.arg). */
  arg(read: (input: I) => unknown, cast?: string): string {
    return this.args.arg(read, cast);
  }

  /**
   * The SQL of a helper written over parameters (`render(p, value)`, calling `p.add(value, cast)`), for the value
   * `read(input)`: its placeholders read the values the helper adds for each input (the helper must add the same
   * number of values for every input of the shape). The helper runs again per statement for its values only.
   */
  via<T, R>(read: (input: I) => T, render: (p: Pick<SqlParams, 'add'>, value: T) => R): R {
    const memo = new WeakMap<object, unknown[]>();
    const valuesOf = (input: I) => {
      let values = memo.get(input as object);
      if (!values) {
        const p = new SqlParams();
        render(p, read(input));
        values = p.values;
        memo.set(input as object, values);
      }
      return values;
    };
    let k = 0;
    return render(
      {
        add: (_value: unknown, cast?: string) => {
          const n = k++;
          return this.arg((input) => valuesOf(input)[n], cast);
        },
      },
      read(this.sample),
    );
  }

  /** A recursive read (the statement then starts `WITH RECURSIVE`); `columns` names its columns (`n, slug`). */
  recursive(name: string, columns: string, sql: string): this {
    this.isRecursive = true;
    return this.add({ name: `${name}(${columns})`, kind: 'check', sql });
  }

  /** @internal the chain has a recursive CTE */
  isRecursive = false;

  /** The caller's access row, or other reads the later CTEs use (no locks). */
  access(name: string, sql: string): this {
    return this.add({ name, kind: 'access', sql });
  }

  /** Rows of `table` the write references or rewrites, locked (`FOR KEY SHARE`, `FOR NO KEY UPDATE`, ...): drained before the event lock, in LOCK_ORDER. */
  lock(name: string, table: LockTable, sql: string): this {
    return this.add({ name, kind: 'lock', sql, table });
  }

  /** A read the write is conditioned on (no locks, no writes). */
  check(name: string, sql: string): this {
    return this.add({ name, kind: 'check', sql });
  }

  /** A data-modifying CTE (with RETURNING): drained before the event lock. */
  write(name: string, sql: string): this {
    return this.add({ name, kind: 'write', sql });
  }

  /** Adds CTE texts of a helper (`name AS ...`), each of `kind` (locks: of `table`). */
  addAll(kind: CteKind, ctes: readonly string[], table?: LockTable): this {
    if (kind === 'lock' && !table) throw new Error('a lock names its table');
    for (const sql of ctes) this.add({ name: cteName(sql), kind, sql: sql.slice(sql.indexOf(' AS ') + 4), table });
    return this;
  }

  /** Declares the event the write records; the chain is then closed. */
  event(event: StatementEvent<I>): SealedWrite<I> {
    return new SealedWrite(this.args, [...this.parts], event, this.isRecursive);
  }

  /** Declares that the write records no event, and why (the reason is for readers: a write without an event is a decision). */
  noEvent(reason: string): SealedWrite<I> {
    void reason;
    return new SealedWrite(this.args, [...this.parts], null, this.isRecursive);
  }

  private add(cte: Cte): this {
    if (!/^[a-z_][a-z0-9_]*(\([a-z_, ]+\))?$/.test(cte.name)) throw new Error(`bad CTE name ${cte.name}`);
    this.parts.push(cte);
    return this;
  }
}

/** The name of a CTE text `name AS (...)`. */
function cteName(sql: string): string {
  return sql.slice(0, sql.indexOf(' '));
}

declare const BUILT: unique symbol;

/** A whole statement's text and readers: what a shape's build returns (only SealedWrite.select makes one). */
export interface Built<I> {
  readonly [BUILT]: true;
  readonly text: string;
  readonly readers: readonly ((input: I) => unknown)[];
}

/** A chain whose event is declared: it answers with a SELECT over its CTEs. */
export class SealedWrite<I> {
  constructor(
    private readonly args: Args<I>,
    private readonly parts: readonly Cte[],
    private readonly evt: StatementEvent<I> | null,
    private readonly isRecursive = false,
  ) {}

  /** The statement: the CTEs in order, the drain list built from them, the event last, then `SELECT <sql>`. */
  select(sql: string): Built<I> {
    const ctes = this.parts.map((c) => `${c.name} AS ${c.sql}`);
    if (this.evt) ctes.push(...this.evt.ctes(this.args, drainOrder(this.parts, this.evt.reads)));
    return {
      text: `${ctes.length ? `WITH ${this.isRecursive ? 'RECURSIVE ' : ''}${ctes.join(',\n')}\n` : ''}SELECT ${sql}`,
      readers: this.args.readers,
    } as unknown as Built<I>;
  }
}

/** The lock and write CTEs of `parts` the event must wait for: locks in LOCK_ORDER (then as declared), then writes as declared; `reads` left out. */
export function drainOrder(parts: readonly Pick<Cte, 'name' | 'kind' | 'table'>[], reads: readonly string[] = []): string[] {
  const rank = (c: Pick<Cte, 'table'>) => LOCK_ORDER.indexOf(c.table!);
  const locks = parts
    .filter((c) => c.kind === 'lock')
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => c);
  const writes = parts.filter((c) => c.kind === 'write');
  return [...locks, ...writes].map((c) => c.name).filter((name) => !reads.includes(name));
}

/** A rendered statement: its text and parameter values. */
export interface Rendered {
  text: string;
  values: unknown[];
}

/**
 * A write statement of one kind: `shape(input)` keys its text, `build` makes the
 * text of a shape (once) from a chain whose placeholders read the input; `R` is the
 * type of its result rows, stated here once.
 */
export class WriteStatement<I, R> {
  private readonly shapes = new Map<string, Built<I>>();

  constructor(
    /** Names the statement (errors, the rendered queries file). */
    readonly name: string,
    private readonly shape: (input: I) => string,
    private readonly build: (w: WriteChain<I>, input: I) => Built<I>,
  ) {}

  /** Text and values for `input`; the text of its shape is built on first use and kept. */
  render(input: I): Rendered {
    const built = this.built(this.shape(input), input);
    const values = new Array<unknown>(built.readers.length);
    for (let i = 0; i < values.length; i++) values[i] = built.readers[i](input);
    return { text: built.text, values };
  }

  /** The shape key of `input` and its text, values left unread (the rendered queries file, `npm run queries`). */
  shapeText(input: I): { shape: string; text: string } {
    const shape = this.shape(input);
    return { shape, text: this.built(shape, input).text };
  }

  /** Runs the statement for `input` on `db` and returns its rows. */
  async run(db: WriteDb, input: I): Promise<R[]> {
    const { text, values } = this.render(input);
    return 'rows' in db ? db.rows<R>(text, values) : ((await db.query(text, values)) as R[]);
  }

  /** The text and readers of shape `key`, built from `input` on first use and kept. */
  private built(key: string, input: I): Built<I> {
    let built = this.shapes.get(key);
    if (!built) {
      built = this.build(new WriteChain(new Args<I>(), input), input);
      this.shapes.set(key, built);
    }
    return built;
  }

  /** Shapes built so far (tests: one per shape). */
  get builtShapes(): number {
    return this.shapes.size;
  }
}

/** Defines a write statement (see WriteStatement). */
export function writeStatement<I, R>(name: string, shape: (input: I) => string, build: (w: WriteChain<I>, input: I) => Built<I>): WriteStatement<I, R> {
  return new WriteStatement<I, R>(name, shape, build);
}

/** A shape key of which of `columns` `patch` sends (`1` sent, `0` not), in column order. */
export function sentKey(columns: readonly string[], patch: object): string {
  let key = '';
  for (const c of columns) key += (patch as Record<string, unknown>)[c] === undefined ? '0' : '1';
  return key;
}

/**
 * A create's values of the field table's written columns: each the body's value (`body(input)[column]`),
 * else (left out or null) its create default over the workspace id SQL `ws`.
 */
export function createValues<I>(w: WriteChain<I>, writes: readonly ColumnWrite[], body: (input: I) => object, ws: string): { columns: string; values: string } {
  const values = writes.map(({ column, cast, createDefault }) => {
    const value = w.arg((i) => (body(i) as Record<string, unknown>)[column] ?? null, cast);
    return createDefault ? `COALESCE(${value}, ${createDefault(ws)})` : value;
  });
  return { columns: writes.map((c) => c.column).join(', '), values: values.join(', ') };
}

/** An INSERT of one row of `table` in workspace `ws` (SQL) with the field table's written columns (createValues). */
export function insertRow<I>(w: WriteChain<I>, table: string, writes: readonly ColumnWrite[], body: (input: I) => object, ws: string): string {
  const { columns, values } = createValues(w, writes, body, ws);
  return `INSERT INTO ${table} (workspace_id, ${columns}) VALUES (${ws}, ${values})`;
}

/**
 * D37 `changes` of an update of the field table's written columns: for each, SQL that is true when
 * `after` (the update's RETURNING rows) holds another value than `before` (the row as it was).
 * Every written column is named: a field added to the table is in its update event by construction.
 */
export function columnChanges(table: Pick<ColumnTable<string>, 'columns'>, after = 'r', before = 'old'): Record<string, string> {
  return Object.fromEntries(table.columns.map((c) => [c, `${after}.${c} IS DISTINCT FROM ${before}.${c}`]));
}

/**
 * The "only sent fields change" update of row `id(input)` of `table` (the PATCH routes): `old`, the
 * row locked FOR NO KEY UPDATE (so it is the version the update applies to), then `r`, the row after
 * the update, with the columns `patch(input)` sends (from the field table's written columns, never from
 * the request). The shape key must include sentKey(table.columns, patch). With nothing sent, no CTE is
 * added (the caller then selects the row as it is) and false is returned.
 */
export function updateRow<I>(
  w: WriteChain<I>,
  tableName: string,
  lockTable: LockTable,
  table: ColumnTable<string>,
  id: (input: I) => number,
  patch: (input: I) => object,
  sample: I,
): boolean {
  const sent = table.writes.filter(({ column }) => (patch(sample) as Record<string, unknown>)[column] !== undefined);
  if (!sent.length) return false;
  const rowId = w.arg(id, 'int');
  const sets = sent.map(({ column, cast }) => `${column} = ${w.arg((i) => (patch(i) as Record<string, unknown>)[column], cast)}`);
  w.lock('old', lockTable, `MATERIALIZED (SELECT * FROM ${tableName} WHERE id = ${rowId} FOR NO KEY UPDATE)`);
  w.write('r', `(UPDATE ${tableName} t SET ${sets.join(', ')} FROM old WHERE t.id = old.id RETURNING t.*)`);
  return true;
}

/** A set of link rows an update replaces (the grant and override tables): see replaceSet. */
export interface SetReplace {
  /** Names of the two write CTEs: the rows no longer kept are deleted, the kept ones inserted. */
  names: [drop: string, add: string];
  /** The link table. */
  table: string;
  /** The CTE of the owning row (aliased `o`). */
  owner: string;
  /** Link-table column → owner column, the link rows of the owner. */
  keys: Record<string, string>;
  /** The link table's column of the set's members. */
  column: string;
  /** FROM item of the members kept, aliased `k`, with their id in `k.id` (`ref_folders k`, `unnest($3::int[]) k(id)`). */
  kept: string;
  /** Other inserted columns: SQL over `o` and `k`. */
  extra?: Record<string, string>;
  /** SQL condition: replace only when it holds (a set not sent stays). */
  when?: string;
  /** The insert's conflict action (default `DO NOTHING`: a kept row stays). */
  onConflict?: string;
}

/**
 * The two write CTEs replacing a link set of the owner row with the members kept: the rows not kept
 * deleted, the kept ones inserted (disjoint rows, so one statement is safe). Both return `1` rows.
 */
export function replaceSet<I>(w: WriteChain<I>, s: SetReplace): WriteChain<I> {
  const when = s.when ? `${s.when} AND ` : '';
  const match = Object.entries(s.keys)
    .map(([link, own]) => `g.${link} = o.${own}`)
    .join(' AND ');
  const extra = Object.entries(s.extra ?? {});
  const columns = [...Object.keys(s.keys), s.column, ...extra.map(([c]) => c)];
  const values = [...Object.values(s.keys).map((own) => `o.${own}`), 'k.id', ...extra.map(([, v]) => v)];
  return w
    .write(
      s.names[0],
      `(DELETE FROM ${s.table} g USING ${s.owner} o
       WHERE ${when}${match} AND g.${s.column} NOT IN (SELECT k.id FROM ${s.kept}) RETURNING 1)`,
    )
    .write(
      s.names[1],
      `(INSERT INTO ${s.table} (${columns.join(', ')})
       SELECT ${values.join(', ')} FROM ${s.owner} o CROSS JOIN ${s.kept}${s.when ? ` WHERE ${s.when}` : ''}
       ON CONFLICT ${s.onConflict ?? 'DO NOTHING'} RETURNING 1)`,
    );
}
