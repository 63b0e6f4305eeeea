import { BadRequestException, ServiceUnavailableException } from '@nestjs/common';

import { toHttpError } from '../errors/to-http-error';
import { INLINE_SANITIZE_MAX, SANITIZE_QUEUE_MAX, sanitizeHtml, sanitizeHtmlAsync, sanitizeHtmlField } from './html';

describe('sanitizeHtmlAsync (D9; long inputs off the event loop)', () => {
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

describe('the worker queue is bounded', () => {
  it(`holds at most ${SANITIZE_QUEUE_MAX} inputs; one more is refused at once with 503, short inputs still run inline`, async () => {
    expect(SANITIZE_QUEUE_MAX).toBe(64);
    const long = (n: number) => `<b>${n}</b>`.repeat(INLINE_SANITIZE_MAX / 4);
    const queued = Array.from({ length: SANITIZE_QUEUE_MAX }, (_, n) => sanitizeHtmlAsync(long(n)));
    const started = Date.now();
    const refused = await sanitizeHtmlAsync(long(-1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(50);
    expect(refused).toBeInstanceOf(ServiceUnavailableException);
    expect(toHttpError(refused)).toEqual({ status: 503, message: 'Service unavailable' });
    expect(await sanitizeHtmlAsync('<b>short</b><script>x</script>')).toBe('<b>short</b>');
    // Every queued input is answered, and the queue takes inputs again once drained.
    expect(await Promise.all(queued)).toEqual(queued.map((_, n) => sanitizeHtml(long(n))));
    expect(await sanitizeHtmlAsync(long(-1))).toBe(sanitizeHtml(long(-1)));
  });
});

describe('sanitizeHtmlField (D8, D9, the text rule)', () => {
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
