/**
 * Internal references that must never reach a user (issue 10, item 5): the
 * decision numbers of the contract (`D12`, `(D5)`, `D1-D32`), its `ext` marker,
 * and the contract's own files, which are not part of this repository.
 */
export const INTERNAL_REFERENCE = /\bD\d{1,2}\b|\bext\b|DECISIONS\.md|FIXTURES\.md|\/work\/shared/g;

/** Each internal reference in `text`, with the line it is on (empty when there are none). */
export function internalReferences(text: string): string[] {
  return text.split('\n').flatMap((line, i) => [...line.matchAll(INTERNAL_REFERENCE)].map((m) => `line ${i + 1}: ${m[0]} in ${line.trim().slice(0, 160)}`));
}
