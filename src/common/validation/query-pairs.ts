import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/**
 * The query string of a URL as name/value pairs in request order, repeated
 * names kept, percent-escapes and `+` decoded (WHATWG URLSearchParams). Unlike
 * the parsed `@Query()` object, it keeps the order of the parameters (D34:
 * the first unknown parameter in request order answers) and every repetition.
 * The values of the parameters named in `verbatim` are kept as written, not
 * decoded: a value that is opaque text of URL-safe characters (D34's cursor)
 * is valid only in the very spelling the server gave, so an escaped spelling
 * of it is a changed text.
 */
export function queryPairs(url: string, verbatim: ReadonlySet<string> = NO_NAMES): Array<[string, string]> {
  const at = url.indexOf('?');
  if (at < 0) return [];
  const query = url.slice(at + 1);
  if (verbatim.size === 0) return [...new URLSearchParams(query)];
  const pairs: Array<[string, string]> = [];
  for (const component of query.split('&')) {
    // One component gives one pair (none when empty), decoded as URLSearchParams decodes it.
    for (const [name, value] of new URLSearchParams(component)) {
      const eq = component.indexOf('=');
      pairs.push([name, verbatim.has(name) ? (eq < 0 ? '' : component.slice(eq + 1)) : value]);
    }
  }
  return pairs;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** Route parameter decorator: the request's query pairs (see queryPairs), the values of the `verbatim` names as written. */
export const QueryPairsOf = createParamDecorator((verbatim: string[] | undefined, ctx: ExecutionContext): Array<[string, string]> => {
  const request = ctx.switchToHttp().getRequest<{ url: string }>();
  return queryPairs(request.url, verbatim ? new Set(verbatim) : undefined);
});
