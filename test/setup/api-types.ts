import type { components } from '../../clients/typescript/schema';

/**
 * A component schema of the document, as the generated client types it
 * (clients/typescript/schema.d.ts). Request bodies and expected answers of the
 * e2e tests are checked against it with `satisfies`, so that a field renamed,
 * removed or retyped in the document fails `npm run typecheck` at the line that
 * uses it, naming the field:
 *
 *   await create(key, { workspace_id: 1, name: 'Bug' } satisfies Schema<'CreateLabel'>);
 *   expect(res.json()).toEqual({ id: expect.any(Number), ... } satisfies Schema<'Label'>);
 */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
