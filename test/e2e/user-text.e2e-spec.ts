import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import { internalReferences } from '../setup/internal-references';
import { ROOT } from '../setup/paths';

/**
 * What users read names no internal decision number and no document outside
 * the repository (issue 10, item 5): the committed OpenAPI document, the
 * generated client, the README and docs/. (The served document is the
 * committed one, byte for byte: openapi.e2e-spec.ts; CLI help: cli.e2e-spec.ts.)
 */

/** The contributors' index of the decision numbers cited in code (issue 33): the one document meant to name them. */
const DECISIONS_INDEX = 'docs/decisions.md';
const FILES = ['openapi.json', 'clients/typescript/schema.d.ts', 'README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
  (f) => f !== DECISIONS_INDEX,
);

/** The .ts files under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the decisions index', () => {
  it('has one row for every decision number cited in src/', () => {
    const cited = new Set(sourceFiles(join(ROOT, 'src')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bD(\d{1,2})\b/g)].map((m) => Number(m[1]))));
    const rows = new Set([...readFileSync(join(ROOT, DECISIONS_INDEX), 'utf8').matchAll(/^\| D(\d+) \|/gm)].map((m) => Number(m[1])));
    expect(cited.size).toBeGreaterThan(40);
    expect([...cited].filter((n) => !rows.has(n)).sort((a, b) => a - b)).toEqual([]);
  });
});

describe('user-facing text', () => {
  it.each(FILES)('%s names no decision number, `ext` marker or outside document', (file) => {
    expect(internalReferences(readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });

  it('the check finds what it looks for', () => {
    expect(internalReferences('ok\nISO 8601 (D11): dates\nLabel ids (ext, D14)\nsee DECISIONS.md')).toEqual([
      'line 2: D11 in ISO 8601 (D11): dates',
      'line 3: ext in Label ids (ext, D14)',
      'line 3: D14 in Label ids (ext, D14)',
      'line 4: DECISIONS.md in see DECISIONS.md',
    ]);
    expect(internalReferences('text, next, ID, D2O, AD12, the 1D3 grid')).toEqual([]);
  });
});
