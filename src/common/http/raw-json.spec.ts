import fc from 'fast-check';

import { RawJson } from './raw-json';

describe('RawJson.page', () => {
  it('is the UTF-8 bytes of its head, rows and rest, whatever their characters', () => {
    const inner = '[{"title":"Café ☕ 𝄞 naïve"},{"title":"plain"}]';
    const body = RawJson.page(inner, ',"limit":2,"next_cursor":"é"}');
    expect(Buffer.isBuffer(body.text)).toBe(true);
    expect(body.text).toEqual(Buffer.from(`{"data":${inner},"limit":2,"next_cursor":"é"}`, 'utf8'));
    expect(JSON.parse(body.text.toString())).toEqual({ data: [{ title: 'Café ☕ 𝄞 naïve' }, { title: 'plain' }], limit: 2, next_cursor: 'é' });
  });

  // Issue 16: the parts are encoded into one buffer sized beforehand; any text, lone surrogates
  // included (3 bytes each, as Buffer.from writes them), fills it exactly.
  it('equals Buffer.from of the joined text for any rows and rest, small or large', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.string({ maxLength: 9000 }));
    fc.assert(
      fc.property(text, text, (rows, rest) => {
        expect(RawJson.page(rows, rest).text).toEqual(Buffer.from(`{"data":${rows}${rest}`, 'utf8'));
      }),
      { numRuns: 500 },
    );
  });
});
