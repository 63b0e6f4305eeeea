import fc from 'fast-check';

import { CreateApiKeyDto } from '../../api-keys/api-keys.dto';
import { CreateCommentDto, UpdateCommentDto } from '../../comments/comments.dto';
import { CreateFolderDto, UpdateFolderDto } from '../../folders/folders.dto';
import { CreateLabelDto, UpdateLabelDto } from '../../labels/labels.dto';
import { CreateListDto, UpdateListDto } from '../../lists/lists.dto';
import { AddMemberDto, UpdateMemberDto } from '../../members/members.dto';
import { CreateStatusDto, UpdateStatusDto } from '../../statuses/statuses.dto';
import { CreateTaskDto, UpdateTaskDto } from '../../tasks/tasks.dto';
import { CreateWebhookDto, UpdateWebhookDto } from '../../webhooks/webhooks.dto';
import { CreateWorkspaceDto, UpdateWorkspaceDto } from '../../workspaces/workspaces.dto';
import { bodyFieldNames } from './body-fields';
import { checkedByPlan, validateBody, validateTarget, validateWithLibraries } from './validate-body';

/** Every request body checked by validateBody. */
const DTOS = {
  CreateTaskDto,
  UpdateTaskDto,
  CreateFolderDto,
  UpdateFolderDto,
  CreateWorkspaceDto,
  UpdateWorkspaceDto,
  CreateLabelDto,
  UpdateLabelDto,
  CreateStatusDto,
  UpdateStatusDto,
  CreateApiKeyDto,
  CreateListDto,
  UpdateListDto,
  AddMemberDto,
  UpdateMemberDto,
  CreateCommentDto,
  UpdateCommentDto,
  CreateWebhookDto,
  UpdateWebhookDto,
};

/** Values a client may send: the kinds the fields accept, near misses, and anything else. */
const value = fc.oneof(
  fc.constantFrom(
    'high',
    'urgent',
    'none',
    'member',
    'admin',
    'viewer',
    'owner',
    'completed',
    'in_progress',
    'tasks:read',
    'tasks:write',
    'task.created',
    'comment.created',
    'https://example.com/hook',
    'http://localhost:9/x',
    '#ff0000',
    '2026-01-15',
    '2026-01-15T09:30:00Z',
    '2026-02-30',
    '<p>Hi <b>there</b><script>alert(1)</script></p>',
    '<img src=x onerror=alert(1)>',
    '  padded  ',
    '',
    ' ',
    'a\u0000b',
    '12',
    '007',
    '-1',
    '1e3',
  ),
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 3_000_000_000 }),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.nat().map(String),
  fc.array(fc.oneof(fc.nat({ max: 50 }), fc.nat({ max: 50 }).map(String), fc.constantFrom('tasks:read', 'task.created', 'x', null)), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 3 }),
);

/** The planned run's result in a comparable form: the 400's message, or the instance's own properties and class. */
async function outcome(run: () => Promise<object>): Promise<unknown> {
  try {
    const instance = run();
    const valid = await instance;
    return { class: valid.constructor.name, keys: Object.keys(valid), fields: { ...valid } };
  } catch (error) {
    return { status: (error as { status?: number }).status, message: (error as Error).message };
  }
}

describe('validateBody runs the DTO checks as class-transformer and class-validator do', () => {
  for (const [name, dto] of Object.entries(DTOS)) {
    const fields = [...bodyFieldNames(dto).values()];
    const body = fc.dictionary(fc.constantFrom(...fields, 'unknown_field', 'toString'), value, { maxKeys: fields.length + 1 });

    it(`${name}: the same instance or the same 400 for any body`, async () => {
      expect(fields.length).toBeGreaterThan(0);
      expect(checkedByPlan(dto)).toBe(true);
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const planned = await outcome(() => validateBody(dto as never, structuredClone(sent)));
          const libraries = await outcome(() => validateWithLibraries(dto as never, structuredClone(sent)));
          expect(planned).toEqual(libraries);
          const plannedTarget = await outcome(() => validateTarget(dto as never, structuredClone(sent)));
          const librariesTarget = await outcome(() => validateWithLibraries(dto as never, structuredClone(sent), true));
          expect(plannedTarget).toEqual(librariesTarget);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('answers a body that is not an object as the libraries do', async () => {
    for (const sent of [null, [], 'text', 3, undefined]) {
      expect(await outcome(() => validateBody(CreateTaskDto, sent))).toEqual(await outcome(() => validateWithLibraries(CreateTaskDto, sent)));
    }
  });
});
