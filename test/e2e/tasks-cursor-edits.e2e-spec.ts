import fc from 'fast-check';

import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * D34 (issue 31): a cursor is valid only as the server wrote it. Property:
 * every single-character edit of a real cursor (a character replaced, inserted
 * or deleted, anywhere, by any character), sent as the value of `cursor`
 * (percent-encoded, so the server reads exactly the edited text) or written
 * raw into the request-target, answers 400 `Invalid cursor`, while the
 * cursor itself answers 200.
 */

const KEY = 'svc_cursor_edits';
const INVALID = JSON.stringify({ error: 'Invalid cursor' } satisfies Schema<'Error'>);
/** Characters an edit puts in a cursor value: its alphabet, the query string's own (`%`, `&`, `=`, `+`, `;`, `#`), other ASCII and beyond. */
const VALUE_CHARS = fc.oneof(
  fc.constantFrom(...'AZaz09-_%&=+;#?/. \t'.split('')),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
/** Characters an edit may write raw into a request-target's query (RFC 3986 `query`, `%` included). */
const RAW_CHARS = fc.constantFrom(..."ABZabz019-._~!$&'()*+,;=:@/?%".split(''));

describe('List tasks: any edit of a cursor is 400 Invalid cursor (D34)', () => {
  let t: TestApp;
  let ws: number;
  let cursor: string;

  beforeAll(async () => {
    t = await createTestApp();
    const ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@cursor-edits.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'ws',
          name: 'Edits',
          slug: 'cursor-edits',
          owner: 'alice',
          lists: [{ ref: 'l', name: 'L' }],
          tasks: Array.from({ length: 3 }, (_, i) => ({ ref: `t${i}`, list: 'l', title: `Task ${i}`, created_at: `2025-01-0${i + 1}T00:00:00.000Z` })),
        },
      ],
    });
    ws = ids.ws;
    const first = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ws}/tasks?include_total=false&limit=1`, headers: auth(KEY) });
    cursor = (first.json() as Schema<'TaskCursorPage'>).next_cursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });
  afterAll(async () => {
    await t.close();
  });

  const page = (rawCursor: string) => t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${ws}/tasks?cursor=${rawCursor}&limit=1`, headers: auth(KEY) });

  it('the cursor as written answers 200', async () => {
    expect((await page(cursor)).statusCode).toBe(200);
  });

  it('a character of the cursor written as a percent-escape is a changed text: 400 Invalid cursor', async () => {
    for (const i of [0, 1, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const escaped = cursor.slice(0, i) + '%' + cursor.charCodeAt(i).toString(16).toUpperCase() + cursor.slice(i + 1);
      const res = await page(escaped);
      expect({ escaped, status: res.statusCode, body: res.body }).toEqual({ escaped, status: 400, body: INVALID });
    }
  });

  it('every single-character edit answers 400 Invalid cursor', async () => {
    const edit = fc
      .boolean()
      .chain((raw) =>
        fc.record({ kind: fc.constantFrom('replace', 'insert', 'delete'), at: fc.nat(), char: raw ? RAW_CHARS : VALUE_CHARS, raw: fc.constant(raw) }),
      )
      .map(({ kind, at, char, raw }) => {
        const i = at % (cursor.length + (kind === 'insert' ? 1 : 0));
        const text = cursor.slice(0, i) + (kind === 'delete' ? '' : char) + cursor.slice(kind === 'insert' ? i : i + 1);
        return { kind, i, char, raw, text };
      })
      .filter(({ text }) => text !== cursor);
    await fc.assert(
      fc.asyncProperty(edit, async ({ text, raw }) => {
        const res = await page(raw ? text : encodeURIComponent(text));
        const unexpected = res.statusCode === 200 || (res.statusCode === 400 && res.body !== INVALID && !raw);
        if (unexpected) throw new Error(`${res.statusCode} ${res.body}`);
      }),
      { numRuns: 400, seed: Number(process.env.FUZZ_SEED ?? 31) },
    );
  });
});
