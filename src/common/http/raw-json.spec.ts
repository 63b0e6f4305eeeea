import { RawJson } from './raw-json';

describe('RawJson.page', () => {
  it('is the UTF-8 bytes of its head, rows and rest, whatever their characters', () => {
    const inner = '[{"title":"Café ☕ 𝄞 naïve"},{"title":"plain"}]';
    const body = RawJson.page(inner, ',"limit":2,"next_cursor":"é"}');
    expect(Buffer.isBuffer(body.text)).toBe(true);
    expect(body.text).toEqual(Buffer.from(`{"data":${inner},"limit":2,"next_cursor":"é"}`, 'utf8'));
    expect(JSON.parse(body.text.toString())).toEqual({ data: [{ title: 'Café ☕ 𝄞 naïve' }, { title: 'plain' }], limit: 2, next_cursor: 'é' });
  });
});
