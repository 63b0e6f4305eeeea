import { BadRequestException } from '@nestjs/common';

import {
  checkText,
  emptyMessage,
  notStringMessage,
  nulMessage,
  patchTextMessages,
  requiredMessage,
  requiredTextMessages,
  tooLongMessage,
} from '../common/validation/body';
import { NOT_SENT, RuleField } from '../common/validation/body-fields';

/*
 * Body fields of the workspace routes (D40) and their rules. D39: lengths
 * count code points; a field sent as null counts as not sent unless the rule
 * gives null a meaning.
 */

/** Code points in `value` (D39: lengths count code points, as `q` does). */
export function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** 400 `<field> must be at most <max> characters` when `value` has more than `max` code points. */
function within(field: string, value: string, max: number): string {
  if (codePoints(value) > max) throw new BadRequestException(tooLongMessage(field, max));
  return value;
}

/** D40: the most characters of a name (D8), a description, an icon or a color, an image URL. */
export const WORKSPACE_LIMITS = { name: 255, description: 2000, icon: 64, color: 64, image_url: 2000 } as const;

/** D40: the slug message. */
export const SLUG_MESSAGE = 'slug must be 1 to 64 URL-safe characters (letters, digits, ".", "_", "~", "-")';
/** D40: the image URL message. */
export const IMAGE_URL_MESSAGE = 'image_url must be an http or https URL';

/** D40: 1 to 64 of `A-Z a-z 0-9 . _ ~ -`, at least one of them not `.`. */
const SLUG = /^(?=.*[^.])[A-Za-z0-9._~-]{1,64}$/;

/** D40: a sent slug, stored as sent; anything else (null included, where null has no meaning) is the slug message. */
export function parseSlug(value: unknown): string {
  if (typeof value !== 'string' || !SLUG.test(value)) throw new BadRequestException(SLUG_MESSAGE);
  return value;
}

/**
 * D40: the slug derived from a name: A-Z lowered (ASCII only), each run of
 * characters other than a-z 0-9 replaced by `-`, cut to 64, leading and trailing
 * `-` stripped; `workspace` when nothing is left.
 */
export function deriveSlug(name: string): string {
  const slug = name
    .replace(/[A-Z]+/g, (s) => s.toLowerCase())
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 64)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'workspace' : slug;
}

/** D40: the `n`th candidate for a derived slug `base` (n >= 1): `base`, then `<base>-2`, ... within 64 characters. */
export function slugCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return base.slice(0, 64 - suffix.length).replace(/-+$/, '') + suffix;
}

/** D40: an http or https URL in the WHATWG parser's serialization, at most 2,000 characters. */
export function parseImageUrl(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw new BadRequestException(IMAGE_URL_MESSAGE);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequestException(IMAGE_URL_MESSAGE);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || codePoints(url.href) > WORKSPACE_LIMITS.image_url) {
    throw new BadRequestException(IMAGE_URL_MESSAGE);
  }
  return url.href;
}

/** D40: a workspace's `name` (D8: trimmed; create: required; update: a non-blank string when sent, null being not sent). */
export function WorkspaceName(options: { required: boolean; description?: string }): PropertyDecorator {
  const { required } = options;
  const max = WORKSPACE_LIMITS.name;
  const messages = required ? requiredTextMessages('name', max) : patchTextMessages('name', max);
  return RuleField(
    { name: 'name', api: { type: 'string', maxLength: max, description: options.description, example: 'Acme' }, required, messages },
    (value) => {
      if (!required && value === null) return NOT_SENT;
      if (!required && value === undefined) return undefined;
      if (typeof value !== 'string') throw new BadRequestException(required ? requiredMessage('name') : notStringMessage('name'));
      if (value.trim() === '') throw new BadRequestException(required ? requiredMessage('name') : emptyMessage('name'));
      return within('name', checkText('name', value).trim(), max);
    },
  );
}

/** D40: `slug`; on create null or absent means derived from the name (the rule then gives undefined). */
export function WorkspaceSlug(options: { create: boolean }): PropertyDecorator {
  return RuleField(
    {
      name: 'slug',
      api: {
        type: 'string',
        pattern: '^(?=.*[^.])[A-Za-z0-9._~-]{1,64}$',
        maxLength: 64,
        ...(options.create ? { nullable: true } : {}),
        description: options.create
          ? 'Unique ignoring case. Left out or null: derived from the name (lower-case ASCII letters and digits, other runs as `-`; `-2`, `-3`, ... added when taken)'
          : "Unique ignoring case; the workspace may change its own slug's case",
        example: 'acme',
      },
      required: false,
      messages: [SLUG_MESSAGE],
    },
    (value) => {
      if (options.create && value === null) return NOT_SENT;
      if (value === undefined) return undefined;
      return parseSlug(value);
    },
  );
}

/** D40: `description`, `icon`, `color`: a string (stored as sent, not trimmed) or null, at most `max` characters. */
export function WorkspaceText(name: 'description' | 'icon' | 'color', example?: string): PropertyDecorator {
  const max = WORKSPACE_LIMITS[name];
  return RuleField(
    {
      name,
      api: { type: 'string', nullable: true, maxLength: max, ...(example ? { example } : {}), description: 'Stored as sent (not trimmed)' },
      required: false,
      messages: [`${name} must be a string or null`, nulMessage(name), tooLongMessage(name, max)],
    },
    (value) => {
      if (value === undefined || value === null) return value;
      if (typeof value !== 'string') throw new BadRequestException(`${name} must be a string or null`);
      return within(name, checkText(name, value), max);
    },
  );
}

/** D40: `image_url`: null, or an http or https URL (returned in the WHATWG parser's serialization). */
export function WorkspaceImageUrl(): PropertyDecorator {
  return RuleField(
    {
      name: 'image_url',
      api: { type: 'string', nullable: true, format: 'uri', maxLength: WORKSPACE_LIMITS.image_url, example: 'https://example.com/cover.png' },
      required: false,
      messages: [IMAGE_URL_MESSAGE],
    },
    parseImageUrl,
  );
}
