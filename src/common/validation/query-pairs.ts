import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/**
 * The query string of a URL as name/value pairs in request order, repeated
 * names kept, percent-escapes and `+` decoded (WHATWG URLSearchParams). Unlike
 * the parsed `@Query()` object, it keeps the order of the parameters (D34:
 * the first unknown parameter in request order answers) and every repetition.
 */
export function queryPairs(url: string): Array<[string, string]> {
  const at = url.indexOf('?');
  return at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1))];
}

/** Route parameter decorator: the request's query pairs (see queryPairs). */
export const QueryPairsOf = createParamDecorator((_: unknown, ctx: ExecutionContext): Array<[string, string]> => {
  const request = ctx.switchToHttp().getRequest<{ url: string }>();
  return queryPairs(request.url);
});
