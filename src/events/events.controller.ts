import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { QueryPairsOf } from '../common/validation/query-pairs';
import { MAX_VALUES, onlyOnceMessage, PAGE_LIMIT, QueryPairs, tooManyValuesMessage, unknownParameterMessage } from '../common/validation/query-reader';
import { EVENT_QUERY_MESSAGES } from './event-query';
import { EVENT_TYPES } from './event-types';
import { EventPageDto } from './events.dto';
import { EventsService } from './events.service';

/** An event type in a pattern (dots escaped). */
const TYPE_PATTERN = EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|');

@ApiTags('Events')
@Controller('api/v1')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  /** D37: the workspace's events after an id. */
  @Get('workspaces/:workspace_id/events')
  @Authenticated('events:read', 'workspace.read')
  @ApiOperation({
    summary: 'List events',
    description:
      'What changed in the workspace, oldest first: one event per accepted create, update or delete of tasks, comments, folders, lists, statuses and labels. ' +
      "Poll with `after` = the previous answer's `next_after`: every event you may see arrives exactly once, in id order, whatever commits meanwhile. " +
      'Access-restricted members see the events of their permitted lists and granted folders, and every status and label event. ' +
      'Events are kept for a configured number of days; an `after` older than the oldest kept event is not an error.',
  })
  // Swagger lists decorated parameters last-first: written in reverse, they read after, limit, type, task_id.
  @ApiQuery({
    name: 'task_id',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$', example: '12' },
    description: 'Only the events about this task (`data.task_id`)',
  })
  @ApiQuery({
    name: 'type',
    required: false,
    style: 'form',
    explode: true,
    schema: {
      type: 'array',
      maxItems: MAX_VALUES,
      items: { type: 'string', pattern: `^(${TYPE_PATTERN})(,(${TYPE_PATTERN}))*$` },
      example: ['task.created,task.updated'],
    },
    description: `Event types: a comma list, the parameter repeated, or both (at most ${MAX_VALUES} values); an event of any of them is kept.`,
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default, example: 100 },
  })
  @ApiQuery({
    name: 'after',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$', default: '0', example: '1042' },
    description: 'Only events with a larger id',
  })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors({
    400: [
      unknownParameterMessage('<name>'),
      onlyOnceMessage('<name>'),
      tooManyValuesMessage('<name>'),
      EVENT_QUERY_MESSAGES.after,
      EVENT_QUERY_MESSAGES.limit,
      EVENT_QUERY_MESSAGES.type,
      EVENT_QUERY_MESSAGES.taskId,
    ],
  })
  listEvents(@CurrentCaller() caller: Caller, @PathId('workspace') id: number, @QueryPairsOf() query: QueryPairs): Promise<RawJson<EventPageDto>> {
    return this.events.listEvents(caller, id, query);
  }
}
