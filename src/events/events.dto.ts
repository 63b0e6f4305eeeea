import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { EVENT_DATA_KEYS, EVENT_TYPES } from './event-types';

/** D37: who made the write. */
export class EventActorDto {
  @ApiInteger({ description: 'User id of the API key that made the write', example: 7 }) user_id: number;
  @ApiInteger({ description: 'Id of that API key', example: 3 }) api_key_id: number;
}

const ID = { type: 'integer', nullable: true };
const DATA_PROPERTIES: Record<string, object> = {
  task_id: ID,
  comment_id: ID,
  attachment_id: ID,
  folder_id: ID,
  list_id: ID,
  status_id: ID,
  label_id: ID,
  parent_id: ID,
  previous_list_id: ID,
  previous_folder_id: ID,
  // D48: member events.
  user_id: ID,
  role: { type: 'string', enum: ['owner', 'admin', 'member', 'viewer'] },
  // D48: custom-field events.
  custom_field_id: ID,
  // The names of the type's resource fields (its update body's keys and link sets): no enum, so a new field needs no second list.
  changes: { type: 'array', items: { type: 'string' } },
};

/** D37: an event of the feed (and of webhook deliveries). */
export class EventDto {
  @ApiInteger({ description: 'Positive, increasing within a workspace in commit order (with gaps); never reused', example: 1042 }) id: number;
  @ApiProperty({ enum: EVENT_TYPES, example: 'task.updated' }) type: string;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiProperty({ description: 'When the write happened (its transaction time): the created_at / updated_at it stored', example: '2025-01-15T09:30:00.000Z' })
  occurred_at: string;
  @ApiProperty({ type: EventActorDto }) actor: EventActorDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: false,
    properties: DATA_PROPERTIES as never,
    description:
      'Keys by type, each always present (null when there is no list, parent or folder): ' +
      Object.entries(EVENT_DATA_KEYS)
        .map(([type, keys]) => `\`${type}\`: ${keys.join(', ')}`)
        .join('; ') +
      '. `list_id` and `folder_id` are the values after the write, `previous_*` those before it. ' +
      '`changes`: the sorted names of the fields whose stored value changed.',
    example: { task_id: 12, list_id: 3, previous_list_id: 2, parent_id: null, changes: ['list_id', 'title'] },
  })
  data: Record<string, number | string | string[] | null>;
}

/** D37: a page of the events feed. */
export class EventPageDto {
  @ApiProperty({ type: [EventDto], description: 'Events with id > after, ascending' }) data: EventDto[];
  @ApiInteger({ description: 'The last id returned, or `after` when `data` is empty: send it as `after` next time', example: 1042 }) next_after: number;
}
