import { BadRequestException } from '@nestjs/common';
import { parseCreateBody, parseUpdateBody } from './tasks.body';

const fails = (promise: Promise<unknown>, message: string) => expect(promise).rejects.toThrow(new BadRequestException(message));

describe('parseCreateBody', () => {
  it('parses every field (D8-D14)', async () => {
    expect(
      await parseCreateBody({
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

  it('leaves out what is not sent', async () => {
    expect(await parseCreateBody({ title: 'x' })).toEqual({
      title: 'x', parentId: null, listId: undefined, description: undefined, priority: undefined, statusId: undefined,
      dueDate: undefined, startDate: undefined, assigneeIds: undefined, customFields: undefined, labelIds: undefined,
    });
  });

  it('reports the first bad field in the order of the specification table', async () => {
    await fails(parseCreateBody({ priority: 'x' }), 'title is required');
    await fails(parseCreateBody({ title: 'x', priority: 'x', status_id: 'y' }), 'Invalid priority. Must be one of: urgent, high, medium, low, none');
    await fails(parseCreateBody({ title: 'x', status_id: 'y', due_date: 'z' }), 'status_id must be a valid numeric ID');
    await fails(parseCreateBody({ title: 'x', parent_id: true }), 'parent_id must be a valid numeric ID');
    await fails(parseCreateBody({ title: 'x', custom_fields: [{ id: 1, value: [] }] }), 'custom_fields value must be a string or null');
    await fails(parseCreateBody({ title: 'a\u0000', priority: 'x' }), 'title must not contain NUL characters');
    await fails(parseCreateBody({ title: 'x', description: '\u0000', priority: 'x' }), 'description must not contain NUL characters');
  });

  it('bounds the stored description: sanitizing may grow it past the D8 limit (issue 8)', async () => {
    expect((await parseCreateBody({ title: 'x', description: '<'.repeat(25_000) })).description).toHaveLength(100_000);
    await fails(parseCreateBody({ title: 'x', description: '<'.repeat(25_001) }), 'description must be at most 100000 characters');
  });
});

describe('parseUpdateBody', () => {
  it('keeps only the fields sent', async () => {
    const patch = await parseUpdateBody({ list_id: 5, due_date: null });
    expect(Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))).toEqual({ listId: 5, dueDate: null });
  });

  it.each(([
    [{ title: '' }, 'title cannot be empty'],
    [{ title: 3 }, 'title must be a string'],
    [{ list_id: null }, 'list_id must be a valid numeric ID'],
    [{ list_id: '1e3' }, 'list_id must be a valid numeric ID'],
    [{ assignee_ids: {} }, 'assignee_ids must be an array'],
    [{ label_ids: 'x' }, 'label_ids must be an array'],
    [{ custom_fields: null }, 'custom_fields must be an array'],
    [{ title: 'a\u0000b' }, 'title must not contain NUL characters'],
    [{ description: '<p>\u0000</p>' }, 'description must not contain NUL characters'],
    [{ custom_fields: [{ id: 1, value: '\u0000' }] }, 'custom_fields value must not contain NUL characters'],
    [{ description: 'a'.repeat(100_001) }, 'description must be at most 100000 characters'],
    [{ description: '<'.repeat(30_000) }, 'description must be at most 100000 characters'],
  ] as Array<[Record<string, unknown>, string]>).map(([body, message]) => [message, JSON.stringify(body).slice(0, 60), body] as const))('%s (%s)', async (message, _label, body) => {
    await fails(parseUpdateBody(body), message);
  });
});
