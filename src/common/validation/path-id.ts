import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';

import { deferPathError } from '../http/write-request';
import { ApiErrors } from '../openapi/api-errors.decorator';
import { PATH_ID_MESSAGES, PathIdKind, requireId } from './ids';

/**
 * D3 step 4, D5, D6: the path ids of `kinds` in `params` as numbers, checked left to right:
 * the first malformed one throws 400 (`Invalid task ID`).
 */
export function parsePathIds(params: Record<string, unknown>, kinds: readonly PathIdKind[]): number[] {
  return kinds.map((kind) => requireId(params[pathIdName(kind)], PATH_ID_MESSAGES[kind]));
}

/** The name of the path parameter that holds an id of `kind` (`task_id`); routes write it `:task_id`. */
export function pathIdName(kind: PathIdKind): string {
  return `${kind}_id`;
}

/**
 * The path ids of the request's route, after the guard (authentication and scope come first, D3).
 * A keyed write's malformed id waits for its key's claim (deferPathError, D35): its route
 * never runs, and it answers the 400 after a replay had its chance.
 */
function pathIdsOf(ctx: ExecutionContext, kinds: readonly PathIdKind[]): number[] {
  const request = ctx.switchToHttp().getRequest<{ params: Record<string, unknown> }>();
  try {
    return parsePathIds(request.params, kinds);
  } catch (malformed) {
    if (deferPathError(request, malformed as Error)) return kinds.map(() => Number.NaN);
    throw malformed;
  }
}

const pathIdParam = createParamDecorator((kind: PathIdKind, ctx: ExecutionContext): number => pathIdsOf(ctx, [kind])[0]);
const pathIdsParam = createParamDecorator((kinds: readonly PathIdKind[], ctx: ExecutionContext): number[] => pathIdsOf(ctx, kinds));

/** An example id per kind, for the OpenAPI document. */
const PATH_ID_EXAMPLES: Record<PathIdKind, number> = {
  workspace: 1,
  folder: 2,
  list: 3,
  task: 41,
  status: 4,
  label: 5,
  webhook: 6,
  user: 7,
  api_key: 8,
  comment: 9,
  custom_field: 10,
  attachment: 11,
};

/** Each path id's description in the OpenAPI document. */
const PATH_ID_DESCRIPTIONS: Record<PathIdKind, string> = {
  workspace: 'Workspace id',
  folder: 'Folder id',
  list: 'List id',
  task: 'Task id',
  status: 'Status id',
  label: 'Label id',
  webhook: 'Webhook id',
  user: 'User id of the member',
  api_key: 'API key id',
  comment: 'Comment id',
  custom_field: 'Custom field id',
  attachment: 'Attachment id',
};

/**
 * The route's `{<kind>_id}` path parameter as a number, documented
 * as an integer named for its resource (client generators type it
 * and name it; the URL is the same for callers), with its 400 (`Invalid task ID`).
 * One decorator for all three, so they cannot drift: `getTask(@PathId('task') id: number)`
 * on `@Get('tasks/:task_id')`.
 */
export function PathId(kind: PathIdKind): ParameterDecorator {
  return pathIdsDecorator(pathIdParam(kind), [kind]);
}

/**
 * PathId for a route with several path ids (D39: both checked for form at D3 step 4, left to
 * right): the ids as numbers, in the order of `kinds`. `@Put('tasks/:task_id/labels/:label_id')`
 * `addTaskLabel(@PathIds('task', 'label') [id, labelId]: number[])`.
 */
export function PathIds(...kinds: PathIdKind[]): ParameterDecorator {
  return pathIdsDecorator(pathIdsParam(kinds), kinds);
}

function pathIdsDecorator(bind: ParameterDecorator, kinds: PathIdKind[]): ParameterDecorator {
  const documents = kinds.map((kind) =>
    ApiParam({
      name: pathIdName(kind),
      required: true,
      schema: { type: 'integer', minimum: 0, example: PATH_ID_EXAMPLES[kind] },
      description: PATH_ID_DESCRIPTIONS[kind],
    }),
  );
  const errors = ApiErrors({ 400: kinds.map((kind) => PATH_ID_MESSAGES[kind]) });
  return (target, key, index) => {
    bind(target, key, index);
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
    for (const document of documents) document(target, key, descriptor);
    errors(target, key, descriptor);
  };
}
