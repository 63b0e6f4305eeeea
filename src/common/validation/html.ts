import { Worker } from 'node:worker_threads';

import { ServiceUnavailableException } from '@nestjs/common';
import sanitize from 'sanitize-html';

import { checkLength, checkText, MAX_LENGTH } from './body';

/** D9: the tags and attributes kept in HTML fields; everything else is removed. */
const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    'p',
    'br',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'strike',
    'a',
    'ul',
    'ol',
    'li',
    'blockquote',
    'code',
    'pre',
    'span',
    'img',
  ],
  allowedAttributes: { a: ['href'], img: ['src', 'alt'] },
  allowedSchemesByTag: { a: ['http', 'https', 'mailto'], img: ['http', 'https'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/** D9: sanitizes an HTML field (`description`, `content`) in this thread: scripts, styles, iframes, handlers and `javascript:` URLs go. */
export function sanitizeHtml(input: string): string {
  return sanitize(input, OPTIONS);
}

/**
 * Inputs longer than this many characters are sanitized in a worker thread.
 * The parser's cost grows with the square of the tag nesting depth: at the D8
 * limit (100,000 characters) deeply nested or mismatched tags
 * (`<b>` x 16,000 then `</p>` x 12,000) take ~0.5 s of CPU, which must not stop
 * the event loop; at 16,000 characters the worst case measured ~15 ms.
 */
export const INLINE_SANITIZE_MAX = 16_000;

// Runs in the worker: the same library and options, one message per input.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sanitize = require(workerData.module);
parentPort.on('message', ({ id, input }) => parentPort.postMessage({ id, output: sanitize(input, workerData.options) }));
`;

/**
 * Most inputs waiting for (or in) the worker at once. At ~0.5 s for the worst input this is
 * about half a minute of work; past it a request answers 503 `Service unavailable` at once instead of
 * queueing without bound (memory, and answers later than any client waits).
 */
export const SANITIZE_QUEUE_MAX = 64;

/** One lazily started worker, unref'd so that it never keeps the process alive; replaced when it dies. */
class SanitizerWorker {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (s: string) => void; reject: (e: Error) => void }>();

  /** Sanitizes `input` in the worker; rejects with ServiceUnavailableException when SANITIZE_QUEUE_MAX inputs are pending. */
  run(input: string): Promise<string> {
    if (this.pending.size >= SANITIZE_QUEUE_MAX) return Promise.reject(new ServiceUnavailableException());
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref(); // busy: keep it alive until the answer arrives
      worker.postMessage({ id, input });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: require.resolve('sanitize-html'), options: OPTIONS },
    });
    worker.unref();
    worker.on('message', ({ id, output }: { id: number; output: string }) => {
      this.pending.get(id)?.resolve(output);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`HTML sanitizer worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

const worker = new SanitizerWorker();

/**
 * D9: sanitizes `input`, off the event loop when it is long enough to be costly (INLINE_SANITIZE_MAX).
 *
 * @throws ServiceUnavailableException (503) when the worker already has SANITIZE_QUEUE_MAX inputs
 */
export function sanitizeHtmlAsync(input: string): Promise<string> {
  return input.length <= INLINE_SANITIZE_MAX ? Promise.resolve(sanitizeHtml(input)) : worker.run(input);
}

/** The HTML fields (spec: convention 5) and their D8 limits. */
export type HtmlField = 'description' | 'content';

/**
 * D8 and D9 for an HTML field: the text rule (NUL), at most the D8
 * limit before sanitizing (bounds the work), sanitized, then at most the D8
 * limit as stored (sanitizing can grow text: `<` becomes `&lt;`). Both limits
 * answer 400 `<field> must be at most 100000 characters`. `trim` trims the
 * sanitized text (comments, D8) before its length is checked.
 */
export async function sanitizeHtmlField(field: HtmlField, input: string, trim = false): Promise<string> {
  const max = MAX_LENGTH[field];
  checkLength(field, checkText(field, input), max);
  let clean = await sanitizeHtmlAsync(input);
  if (trim) clean = clean.trim();
  return checkLength(field, clean, max);
}
