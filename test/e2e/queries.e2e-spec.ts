import { existsSync, readdirSync, readFileSync } from 'fs';
import { join, resolve } from 'path';

import { registeredStatements, renderQueryFiles, SAMPLES } from '../../src/queries.catalog';
import { ROOT } from '../setup/paths';

const SRC = resolve(ROOT, 'src');

/** Every .ts file under `dir` (specs left out). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('src/<domain>/<domain>.queries.sql (npm run queries)', () => {
  it('every committed queries file is what the repositories render now', () => {
    const files = renderQueryFiles();
    expect(files.size).toBeGreaterThan(0);
    for (const [path, text] of files) {
      const file = resolve(SRC, path);
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (committed !== text) throw new Error(`src/${path} is stale: run \`npm run queries\` and commit it`);
    }
    // No queries file of a domain that renders none.
    const rendered = new Set([...files.keys()].map((p) => resolve(SRC, p)));
    const committedFiles = readdirSync(SRC)
      .map((d) => resolve(SRC, d, `${d}.queries.sql`))
      .filter((f) => existsSync(f));
    expect(committedFiles.filter((f) => !rendered.has(f))).toEqual([]);
  });

  it('every writeStatement of src is registered, with samples, and every sample names a registered statement', () => {
    const names = sources(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:writeStatement|patchRowStatement|insertRowStatement)<[\s\S]*?>\(\s*'([^']+)'/g)].map((m) => m[1]),
    );
    const registered = registeredStatements().map(({ statement }) => statement.name);
    expect(names.length).toBeGreaterThan(30);
    expect([...names].sort()).toEqual([...registered].sort());
    expect(registered.filter((name) => !SAMPLES[name]?.length)).toEqual([]);
    expect(Object.keys(SAMPLES).filter((name) => !registered.includes(name))).toEqual([]);
  });

  it('each sample renders a shape of its own (none is a duplicate of another)', () => {
    for (const { statement } of registeredStatements()) {
      const shapes = SAMPLES[statement.name].map((s) => statement.shapeText(s).shape);
      expect({ name: statement.name, shapes: new Set(shapes).size }).toEqual({ name: statement.name, shapes: shapes.length });
    }
  });
});
