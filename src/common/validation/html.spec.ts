import { BadRequestException } from '@nestjs/common';
import { INLINE_SANITIZE_MAX, sanitizeHtml, sanitizeHtmlAsync, sanitizeHtmlField } from './html';

describe('sanitizeHtmlAsync (D9; issue 8: long inputs off the event loop)', () => {
  it('gives what the inline sanitizer gives, below and above the worker threshold', async () => {
    const dirty = '<p onclick="x()">Hi<script>alert(1)</script></p><a href="javascript:alert(1)">x</a><img src="https://e.test/a.png" onerror="y">';
    const long = dirty.repeat(Math.ceil((INLINE_SANITIZE_MAX + 1) / dirty.length));
    expect(long.length).toBeGreaterThan(INLINE_SANITIZE_MAX);
    expect(await sanitizeHtmlAsync(dirty)).toBe('<p>Hi</p><a>x</a><img src="https://e.test/a.png" />');
    expect(await sanitizeHtmlAsync(long)).toBe(sanitizeHtml(long));
  });

  it('answers concurrent requests each with its own result', async () => {
    const inputs = [1, 2, 3].map((n) => `<b>${n}</b>`.repeat(INLINE_SANITIZE_MAX / 4));
    expect(await Promise.all(inputs.map(sanitizeHtmlAsync))).toEqual(inputs.map(sanitizeHtml));
  });
});

describe('sanitizeHtmlField (D8, D9, issue 8)', () => {
  const fails = (promise: Promise<unknown>, message: string) => expect(promise).rejects.toThrow(new BadRequestException(message));

  it('applies the text rule, then the D8 limit to the input and to the stored text', async () => {
    await fails(sanitizeHtmlField('content', 'a\u0000'), 'content must not contain NUL characters');
    await fails(sanitizeHtmlField('description', 'a'.repeat(100_001)), 'description must be at most 100000 characters');
    await fails(sanitizeHtmlField('content', '&'.repeat(20_001)), 'content must be at most 100000 characters'); // &amp; x 20,001
    expect(await sanitizeHtmlField('content', '&'.repeat(20_000))).toHaveLength(100_000);
  });

  it('trims the sanitized text when asked, before its length is checked', async () => {
    expect(await sanitizeHtmlField('content', '<script>x</script>  <b>ok</b>  ', true)).toBe('<b>ok</b>');
    expect(await sanitizeHtmlField('content', ' '.repeat(99_990) + '<b>x</b>', true)).toBe('<b>x</b>');
  });
});
