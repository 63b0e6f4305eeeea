import { BadRequestException } from '@nestjs/common';
import { parseCreateBody, parseUpdateBody } from './tasks.body';

const fails = (fn: () => unknown, message: string) => expect(fn).toThrow(new BadRequestException(message));

describe('parseCreateBody', () => {
  it('parses every field (D8-D14)', () => {
    expect(
      parseCreateBody({
        title: '  T  ',
        description: '<p onclick="x">d</p>',
        priority: 'low',
        status_id: '4',
        due_date: '2025-01-15T10:00+01:00',
        start_date: '',
        assignee_ids: [3, '3', 'x', null, 2, 0],
        custom_fields: [{ id: 1, value: 2 }, { id: '2', value: false }, { id: 1, value: 'last' }, { id: 3 }, { id: 'x', value: 'y' }, 7],
        label_ids: ['9'],
        parent_id: 12,
        list_id: 'ignored here',
      }),
    ).toEqual({
      title: 'T',
      description: '<p>d</p>',
      priority: 'low',
      statusId: 4,
      listId: undefined,
      dueDate: '2025-01-15T09:00:00.000Z',
      startDate: null,
      assigneeIds: [3, 2],
      customFields: [{ id: 2, value: 'false' }, { id: 1, value: 'last' }, { id: 3, value: null }],
      labelIds: [9],
      parentId: 12,
    });
  });

  it('leaves out what is not sent', () => {
    expect(parseCreateBody({ title: 'x' })).toEqual({
      title: 'x', parentId: null, listId: undefined, description: undefined, priority: undefined, statusId: undefined,
      dueDate: undefined, startDate: undefined, assigneeIds: undefined, customFields: undefined, labelIds: undefined,
    });
  });

  it('reports the first bad field in the order of the specification table', () => {
    fails(() => parseCreateBody({ priority: 'x' }), 'title is required');
    fails(() => parseCreateBody({ title: 'x', priority: 'x', status_id: 'y' }), 'Invalid priority. Must be one of: urgent, high, medium, low, none');
    fails(() => parseCreateBody({ title: 'x', status_id: 'y', due_date: 'z' }), 'status_id must be a valid numeric ID');
    fails(() => parseCreateBody({ title: 'x', parent_id: true }), 'parent_id must be a valid numeric ID');
    fails(() => parseCreateBody({ title: 'x', custom_fields: [{ id: 1, value: [] }] }), 'custom_fields value must be a string or null');
  });
});

describe('parseUpdateBody', () => {
  it('keeps only the fields sent', () => {
    const patch = parseUpdateBody({ list_id: 5, due_date: null });
    expect(Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))).toEqual({ listId: 5, dueDate: null });
  });

  it.each([
    [{ title: '' }, 'title cannot be empty'],
    [{ title: 3 }, 'title must be a string'],
    [{ list_id: null }, 'list_id must be a valid numeric ID'],
    [{ list_id: '1e3' }, 'list_id must be a valid numeric ID'],
    [{ assignee_ids: {} }, 'assignee_ids must be an array'],
    [{ label_ids: 'x' }, 'label_ids must be an array'],
    [{ custom_fields: null }, 'custom_fields must be an array'],
  ])('%j: %s', (body, message) => {
    fails(() => parseUpdateBody(body), message);
  });
});
