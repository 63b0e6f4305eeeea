import { INLINE_SANITIZE_MAX, SANITIZE_QUEUE_MAX, sanitizeHtmlAsync } from '../../src/common/validation/html';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, useTestApp } from '../setup/create-app';
import { KEYS, tasksWorld } from './tasks-world';

/**
 * The one text rule (U+0000 is 400 naming the field, at
 * D3 step 7, never a 500) on every string field of every body, and the D8 limits
 * of the HTML fields before and after sanitizing (D9).
 */
describe('hostile text', () => {
  const { t, ids } = useTestApp((ds) => loadFixture(ds, tasksWorld()));
  const send = (method: 'POST' | 'PATCH', url: string, payload: object, key: string = KEYS.owner) => t.inject({ method, url, headers: auth(key), payload });

  const NUL = 'a\u0000b';

  /** Every body string field: [route, method, url, a valid body without the field, field, body with NUL in it]. */
  const cases = (): Array<[string, 'POST' | 'PATCH', string, object, string]> => {
    const withField = (base: object, field: string): object =>
      field === 'custom_fields value' ? { ...base, custom_fields: [{ id: ids.cf_open, value: NUL }] } : { ...base, [field]: NUL };
    const rows: Array<[string, 'POST' | 'PATCH', string, object, string[]]> = [
      ['create task', 'POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'T' }, ['title', 'description', 'custom_fields value']],
      ['update task', 'PATCH', `/api/v1/tasks/${ids.t_sprint}`, {}, ['title', 'description', 'custom_fields value']],
      ['create comment', 'POST', `/api/v1/tasks/${ids.t_full}/comments`, {}, ['content']],
      ['create folder', 'POST', '/api/v1/folders', { workspace_id: ids.acme, name: 'F' }, ['name', 'icon', 'color']],
      ['update folder', 'PATCH', `/api/v1/folders/${ids.eng}`, {}, ['name', 'icon', 'color']],
      ['create list', 'POST', '/api/v1/lists', { workspace_id: ids.acme, folder_id: ids.eng, name: 'L' }, ['name', 'icon', 'color']],
      ['update list', 'PATCH', `/api/v1/lists/${ids.sprint}`, {}, ['name', 'icon', 'color']],
      ['create status', 'POST', '/api/v1/statuses', { workspace_id: ids.acme, name: 'S', category: 'pending' }, ['name', 'icon', 'color']],
      ['update status', 'PATCH', `/api/v1/statuses/${ids.review}`, {}, ['name', 'icon', 'color']],
      ['create label', 'POST', '/api/v1/labels', { workspace_id: ids.acme, name: 'N' }, ['name', 'color']],
    ];
    return rows.flatMap(([name, method, url, base, fields]) =>
      fields.map((field) => [`${name}: ${field}`, method, url, withField(base, field), field] as [string, 'POST' | 'PATCH', string, object, string]),
    );
  };

  it('answers NUL in every body string field with 400 naming the field', async () => {
    for (const [name, method, url, body, field] of cases()) {
      const res = await send(method, url, body);
      expect([name, res.statusCode, res.json()]).toEqual([name, 400, { error: `${field} must not contain NUL characters` }]);
    }
  });

  it('checks NUL at D3 step 7: role and access answer first', async () => {
    const viewer = await send('POST', '/api/v1/tasks', { list_id: ids.backlog, title: NUL }, KEYS.viewer);
    expect([viewer.statusCode, viewer.json()]).toEqual([403, { error: 'Viewers cannot create tasks' }]);
    const restricted = await send('PATCH', `/api/v1/tasks/${ids.t_inbox}`, { title: NUL }, KEYS.restricted);
    expect([restricted.statusCode, restricted.json()]).toEqual([403, { error: 'Access denied' }]);
  });

  it('treats NUL in ids, enums and dates as the malformed values they are', async () => {
    const res = await send('POST', '/api/v1/tasks', { list_id: `${ids.backlog}\u0000`, title: 'T' });
    expect([res.statusCode, res.json()]).toEqual([400, { error: 'list_id must be a valid numeric ID' }]);
    const priority = await send('PATCH', `/api/v1/tasks/${ids.t_sprint}`, { priority: 'high\u0000' });
    expect([priority.statusCode, priority.json()]).toEqual([400, { error: 'Invalid priority. Must be one of: urgent, high, medium, low, none' }]);
    const list = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/tasks?list_id=1%00`, headers: auth(KEYS.owner) });
    expect([list.statusCode, list.json()]).toEqual([400, { error: 'list_id must be a valid numeric ID' }]);
  });

  it('answers 503 Service unavailable while the sanitizer worker queue is full, and serves again once drained', async () => {
    // A few of the costliest inputs (~0.5 s each) first, so that the queue is still full when the request arrives.
    const costly = '<b>'.repeat(16_000) + '</p>'.repeat(12_000);
    const filler = 'x'.repeat(INLINE_SANITIZE_MAX + 1);
    const queued = Array.from({ length: SANITIZE_QUEUE_MAX }, (_, n) => sanitizeHtmlAsync(n < 4 ? costly : filler));
    const description = '<p>' + 'y'.repeat(INLINE_SANITIZE_MAX) + '</p>';
    const full = await send('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'Queued', description });
    expect([full.statusCode, full.json()]).toEqual([503, { error: 'Service unavailable' }]);
    await Promise.all(queued);
    const drained = await send('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'Queued', description });
    expect([drained.statusCode, drained.json().description]).toEqual([201, description]);
  }, 30_000);

  describe('sizes of HTML fields (D8, D9)', () => {
    // `<` is stored as `&lt;`: 4 characters each.
    it.each([
      ['create task', () => ['POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'T' }], 'description'],
      ['update task', () => ['PATCH', `/api/v1/tasks/${ids.t_sprint}`, {}], 'description'],
      ['create comment', () => ['POST', `/api/v1/tasks/${ids.t_full}/comments`, {}], 'content'],
    ] as const)('%s: %s over 100000 characters once sanitized is 400; at the limit it is stored whole', async (_name, target, field) => {
      const [method, url, base] = target() as ['POST' | 'PATCH', string, object];
      const over = await send(method, url, { ...base, [field]: 'x' + '<'.repeat(25_000) });
      expect([over.statusCode, over.json()]).toEqual([400, { error: `${field} must be at most 100000 characters` }]);
      const input = await send(method, url, { ...base, [field]: 'x'.repeat(100_001) });
      expect([input.statusCode, input.json()]).toEqual([400, { error: `${field} must be at most 100000 characters` }]);
      const fits = await send(method, url, { ...base, [field]: '<'.repeat(25_000) });
      expect(fits.statusCode).toBe(method === 'POST' ? 201 : 200);
      const stored = field === 'content' ? fits.json().content : fits.json().description;
      expect(stored).toHaveLength(100_000);
    });

    it('sanitizes a pathological 100,000-character description (deep, mismatched tags) and stores the result', async () => {
      const description = '<b>'.repeat(12_000) + '</i>'.repeat(16_000);
      expect(description.length).toBeLessThanOrEqual(100_000);
      const res = await send('PATCH', `/api/v1/tasks/${ids.t_sprint}`, { description });
      expect(res.statusCode).toBe(200);
      expect(res.json().description.startsWith('<b><b>')).toBe(true);
      expect(res.json().description).toBe('<b>'.repeat(12_000) + '</b>'.repeat(12_000));
    });
  });
});
