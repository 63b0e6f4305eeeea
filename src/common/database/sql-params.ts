/** Collects positional parameters for a statement assembled from fragments: `p.add(v)` gives `$n`. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder, with `cast` when given (`$3::int[]`). */
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }
}
