import { BadRequestException } from '@nestjs/common';

import { validateBody, validateCreate, validateTarget } from '../common/validation/validate-body';
import { CreateTaskDto, UpdateTaskDto } from './tasks.dto';

/** What the parser keeps of a `custom_fields` element: its id, D13's failure and text (D42: judged later, when its field applies). */
const element = (e: { id: number; error: string | null; text: string | null }) => ({ id: e.id, error: e.error, text: e.text });
const elements = (dto: { custom_fields?: unknown }) => (dto.custom_fields as Array<{ id: number; error: string | null; text: string | null }>).map(element);

/** The validated DTO as a plain object, without the fields left undefined. */
const sent = (dto: object) => Object.fromEntries(Object.entries(dto).filter(([, v]) => v !== undefined));
const parseCreateBody = async (body: Record<string, unknown>) => sent(await validateBody(CreateTaskDto, { list_id: 1, ...body }));
const parseUpdateBody = async (body: Record<string, unknown>) => sent(await validateBody(UpdateTaskDto, body));

const fails = (promise: Promise<unknown>, message: string) => expect(promise).rejects.toThrow(new BadRequestException(message));

describe('CreateTaskDto', () => {
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
        custom_fields: [
          { id: 1, value: 2 },
          { id: '2', value: false },
          { id: 1, value: 'last' },
          { id: 3, value: null },
          { id: 'x', value: 'y' },
          7,
          { id: 1 },
          { id: 4 },
        ],
        label_ids: ['9'],
        parent_id: 12,
        unknown_field: 'dropped (D7)',
      }),
    ).toEqual({
      list_id: 1,
      title: 'T',
      description: '<p>d</p>',
      priority: 'low',
      status_id: 4,
      due_date: '2025-01-15T09:00:00.000Z',
      start_date: null,
      assignee_ids: [3, 2],
      custom_fields: expect.any(Array),
      label_ids: [9],
      parent_id: 12,
    });
  });

  it('custom_fields (D13, D42): every element with a well-formed id and a value key, in array order, with its text', async () => {
    const dto = await parseCreateBody({
      title: 'x',
      custom_fields: [
        { id: 1, value: 2 },
        { id: '2', value: false },
        { id: 1, value: 'last' },
        { id: 3, value: null },
        { id: 'x', value: 'y' },
        7,
        { id: 1 },
        { id: 4 },
        { id: 5, value: 5.0 },
        { id: 6, value: 1e2 },
        { id: 7, value: -0 },
        { id: 8, value: 1e21 },
      ],
    });
    expect(elements(dto)).toEqual([
      { id: 1, error: null, text: '2' },
      { id: 2, error: null, text: 'false' },
      { id: 1, error: null, text: 'last' },
      { id: 3, error: null, text: null },
      { id: 5, error: null, text: '5' },
      { id: 6, error: null, text: '100' },
      { id: 7, error: null, text: '0' },
      { id: 8, error: null, text: '1e+21' },
    ]);
  });

  it('leaves out what is not sent', async () => {
    expect(await parseCreateBody({ title: 'x' })).toEqual({ list_id: 1, title: 'x', parent_id: null });
  });

  it('reports the first bad field in the order of the specification table', async () => {
    await fails(parseCreateBody({ priority: 'x' }), 'title is required');
    await fails(parseCreateBody({ title: 'x', priority: 'x', status_id: 'y' }), 'Invalid priority. Must be one of: urgent, high, medium, low, none');
    await fails(parseCreateBody({ title: 'x', status_id: 'y', due_date: 'z' }), 'status_id must be a valid numeric ID');
    await fails(parseCreateBody({ title: 'x', parent_id: true }), 'parent_id must be a valid numeric ID');
    await fails(parseCreateBody({ title: 'a\u0000', priority: 'x' }), 'title must not contain NUL characters');
    await fails(parseCreateBody({ title: 'x', description: '\u0000', priority: 'x' }), 'description must not contain NUL characters');
  });

  it('custom_fields (D13): an element without value is ignored, even after another for the same field', async () => {
    expect(elements(await parseCreateBody({ title: 'x', custom_fields: [{ id: 1 }, { id: 2, value: 'v' }, { id: 2 }] }))).toEqual([
      { id: 2, error: null, text: 'v' },
    ]);
    expect(await parseCreateBody({ title: 'x', custom_fields: [{ id: 1 }] })).toMatchObject({ custom_fields: [] });
  });

  it('custom_fields (D42): value errors are kept with their element, answered only when its field applies (never at step 7)', async () => {
    const dto = await parseCreateBody({
      title: 'x',
      custom_fields: [
        { id: 1, value: 'v'.repeat(10_000) },
        { id: 2, value: 'v'.repeat(10_001) },
        { id: 3, value: [] },
        { id: 4, value: { a: 1 } },
        { id: 5, value: 'a\u0000' },
      ],
    });
    expect(elements(dto)).toEqual([
      { id: 1, error: null, text: 'v'.repeat(10_000) },
      { id: 2, error: 'custom_fields value must be at most 10000 characters', text: null },
      { id: 3, error: 'custom_fields value must be a string or null', text: null },
      { id: 4, error: 'custom_fields value must be a string or null', text: null },
      { id: 5, error: 'custom_fields value must not contain NUL characters', text: null },
    ]);
    await fails(
      parseCreateBody({ title: 'x', priority: 'x', custom_fields: [{ id: 1, value: 'v'.repeat(10_001) }] }),
      'Invalid priority. Must be one of: urgent, high, medium, low, none',
    );
  });

  it('custom_fields (D42): what the typed rules need of a text, prepared in Node', async () => {
    const dto = await parseCreateBody({
      title: 'x',
      custom_fields: ['12', '-0.50', '1.', '01', '2025-02-28T10:00+01:00', '2025-02-30', '3,1,3', '0,1', '99999999999,2'].map((value, i) => ({
        id: i + 1,
        value,
      })),
    });
    expect(
      (dto.custom_fields as Array<{ fraction: number; date: string | null; people: string | null }>).map(({ fraction, date, people }) => [
        fraction,
        date,
        people,
      ]),
    ).toEqual([
      [0, null, '12'],
      [2, null, null],
      [-1, null, null],
      [-1, null, null],
      [-1, '2025-02-28T09:00:00.000Z', null],
      [-1, null, null],
      [-1, null, '1,3'],
      [-1, null, null],
      [-1, null, '0,2'],
    ]);
  });

  it('bounds the stored description: sanitizing may grow it past the D8 limit', async () => {
    expect((await parseCreateBody({ title: 'x', description: '<'.repeat(25_000) })).description).toHaveLength(100_000);
    await fails(parseCreateBody({ title: 'x', description: '<'.repeat(25_001) }), 'description must be at most 100000 characters');
  });
});

describe('UpdateTaskDto', () => {
  it('keeps only the fields sent', async () => {
    expect(await parseUpdateBody({ list_id: 5, due_date: null })).toEqual({ list_id: 5, due_date: null });
  });

  it.each(
    (
      [
        [{ title: '' }, 'title cannot be empty'],
        [{ title: 3 }, 'title must be a string'],
        [{ list_id: null }, 'list_id must be a valid numeric ID'],
        [{ list_id: '1e3' }, 'list_id must be a valid numeric ID'],
        [{ assignee_ids: {} }, 'assignee_ids must be an array'],
        [{ label_ids: 'x' }, 'label_ids must be an array'],
        [{ custom_fields: null }, 'custom_fields must be an array'],
        [{ title: 'a\u0000b' }, 'title must not contain NUL characters'],
        [{ description: '<p>\u0000</p>' }, 'description must not contain NUL characters'],
        [{ description: 'a'.repeat(100_001) }, 'description must be at most 100000 characters'],
        [{ description: '<'.repeat(30_000) }, 'description must be at most 100000 characters'],
      ] as Array<[Record<string, unknown>, string]>
    ).map(([body, message]) => [message, JSON.stringify(body).slice(0, 60), body] as const),
  )('%s (%s)', async (message, _label, body) => {
    await fails(parseUpdateBody(body), message);
  });
});

describe('validateTarget (D3 step 4)', () => {
  it.each([
    [{}, 'list_id is required'],
    [{ list_id: null }, 'list_id is required'],
    [{ list_id: '1e3' }, 'list_id must be a valid numeric ID'],
    [{ list_id: true, title: 3 }, 'list_id must be a valid numeric ID'],
  ] as Array<[Record<string, unknown>, string]>)('%j: %s', async (body, message) => {
    await fails(validateTarget(CreateTaskDto, body), message);
  });

  it('checks only list_id: the rest of the body waits for the access check', async () => {
    expect((await validateTarget(CreateTaskDto, { list_id: '7', title: 3, priority: 'x' })).list_id).toBe(7);
  });
});

describe('validateCreate (D3 steps 4 and 7 in one pass)', () => {
  it('a valid body: its target fields and the whole body, validated once', async () => {
    const create = await validateCreate(CreateTaskDto, { list_id: '7', title: ' Ship ', priority: 'high' });
    expect(create.target.list_id).toBe(7);
    expect(create.body()).toBe(create.target);
    expect(create.body()).toMatchObject({ list_id: 7, title: 'Ship', priority: 'high' });
  });

  it("an invalid body with a valid target: the target now, the body's 400 when asked (after the access check)", async () => {
    const create = await validateCreate(CreateTaskDto, { list_id: '7', title: 3, priority: 'x' });
    expect(create.target.list_id).toBe(7);
    expect(() => create.body()).toThrow(new BadRequestException('title is required'));
  });

  it.each([
    [{ title: 3 }, 'list_id is required'],
    [{ list_id: 'x', priority: 'x' }, 'list_id must be a valid numeric ID'],
  ] as Array<[Record<string, unknown>, string]>)("an invalid target: the target's 400 first (%j)", async (body, message) => {
    await fails(validateCreate(CreateTaskDto, body), message);
  });
});

describe('class-transformer hazards', () => {
  it('answers a 400, not a TypeError, for objects with a constructor key (class-transformer#1462)', async () => {
    await fails(parseCreateBody({ title: { constructor: 1 } }), 'title is required');
    expect(elements(await parseUpdateBody({ custom_fields: [{ id: 1, value: { constructor: { prototype: 1 } } }] }))).toEqual([
      { id: 1, error: 'custom_fields value must be a string or null', text: null },
    ]);
    expect(elements(await parseUpdateBody({ custom_fields: [{ constructor: 1, id: 2, value: 'v' }], other: { constructor: 1 } }))).toEqual([
      { id: 2, error: null, text: 'v' },
    ]);
  });
});
