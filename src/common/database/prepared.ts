import { createHash } from 'crypto';
import { Client, ClientConfig, Query, type QueryResult } from 'pg';

/**
 * Named prepared statements for every parameterised statement, in one place
 * PostgreSQL parses and plans an unnamed statement on every call; a
 * named one is parsed once per connection and its plan cached (after a few
 * custom plans, PostgreSQL keeps the generic plan when it is as cheap). The pool
 * creates its connections with this class (`extra.Client`, data-source.ts), so
 * repositories keep calling `query(text, params)` unchanged.
 *
 * The name is a hash of the text: the same text always gets the same name, and
 * different texts never share one. Statements without parameters (BEGIN, COMMIT,
 * migrations' DDL) stay unnamed simple queries. Each connection prepares at most
 * MAX_NAMED_PER_CONNECTION distinct texts; beyond that, new texts go unnamed, so
 * dynamically built SQL (fixture loading, for instance) cannot grow a backend's memory without bound.
 *
 * `DB_PREPARED_STATEMENTS=false` turns naming off (for PgBouncer in transaction
 * mode before 1.21, which cannot keep a prepared statement on one server connection).
 */
export class NamedStatementClient extends Client {
  private readonly prepared = new Set<string>();

  /**
   * Connections keep PostgreSQL's default plan cache mode: a named statement is
   * planned for its values its first five runs, then keeps the generic plan only when that
   * is as cheap. Point reads settle on their generic plan (no planning per call); the task
   * list, whose best plan depends on the workspace's size, keeps custom plans. Forcing
   * generic plans made the first page of a big workspace sort all its tasks.
   */
  constructor(config?: string | ClientConfig) {
    const base: ClientConfig = typeof config === 'string' ? { connectionString: config } : { ...config };
    super(base);
  }

  // pg's overloads are not expressible on an override; the arguments go to Client.query untouched otherwise.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(config);
      if (this.prepared.has(name) || this.prepared.size < MAX_NAMED_PER_CONNECTION) {
        this.prepared.add(name);
        // A Query made from the text and then named: pg copies a config object passed to it
        // property by property (descriptors), about 5 us per statement; from text it does not.
        const query = new Query(config, values, callback) as Query & { name: string; callback?: unknown };
        query.name = name;
        if (callback) {
          super.query(query);
          return undefined;
        }
        return new Promise<QueryResult>((resolve, reject) => {
          query.callback = (error: Error | null, result: QueryResult) => (error ? reject(error) : resolve(result));
          super.query(query);
        }).catch((error: Error) => {
          // As pg does for its own promises: the stack then leads back to the caller, not to the socket read.
          Error.captureStackTrace(error);
          throw error;
        });
      }
    }
    return super.query(config, values, callback);
  }
}

/** Distinct statement texts one connection keeps prepared. */
export const MAX_NAMED_PER_CONNECTION = 1000;

const NAMES = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 5000;

/** `q_` + 24 url-safe characters of the SHA-256 of `text` (well under PostgreSQL's 63-byte name limit). */
export function statementName(text: string): string {
  let name = NAMES.get(text);
  if (name === undefined) {
    name = 'q_' + createHash('sha256').update(text).digest('base64url').slice(0, 24);
    if (NAMES.size >= MAX_REMEMBERED_NAMES) NAMES.clear();
    NAMES.set(text, name);
  }
  return name;
}

/** Shapes a StatementTexts keeps at most: past it, all are forgotten and kept again as they come. */
const MAX_KEPT_SHAPES = 1000;

/**
 * Statement texts kept by the shape of what built them (a string the builder computes, far shorter than
 * the text): `intern(shape, text)` gives the text kept for `shape`, the same string object each time,
 * so that statementName finds its name by identity instead of hashing a freshly built text (a 6 kB
 * text assembled from fragments must be flattened and hashed: 10-20 us). A text whose length differs
 * from the kept one is used as built and kept instead (a shape that misses something the text depends
 * on); with checkWholeTexts (the test suite's) any difference throws, so that the tests find such a shape.
 */
export class StatementTexts {
  /**
   * Whether each reuse compares the whole texts and throws on a difference (a flatten and a compare
   * per request): turned on by the test suite's setup (test/setup/env-defaults.ts), off in the service.
   */
  static checkWholeTexts = false;

  private readonly texts = new Map<string, string>();

  /** The kept text of `shape` when it is `text`'s equal, else `text` (now kept). With checkWholeTexts, throws when the shape had another text. */
  intern(shape: string, text: string): string {
    const check = StatementTexts.checkWholeTexts;
    const kept = this.texts.get(shape);
    if (kept !== undefined && kept.length === text.length && (!check || kept === text)) return kept;
    if (kept !== undefined && check) throw new Error(`StatementTexts: shape ${shape} built two texts`);
    if (this.texts.size >= MAX_KEPT_SHAPES) this.texts.clear();
    this.texts.set(shape, text);
    return text;
  }
}
