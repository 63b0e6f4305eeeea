import { drainOrder, replaceSet, sentKey, type WriteChain, writeStatement } from './write-statement';

interface In {
  id: number;
  name?: string;
}

/** A stand-in event: its CTE lists the drain it was given. */
const EVENT = { reads: ['w'], ctes: (_: unknown, drain: readonly string[]) => [`ev AS (SELECT '${drain.join(',')}' AS drained)`] };

describe('WriteStatement', () => {
  it('does not compile without .event() or .noEvent(): an open chain has no select()', () => {
    const build = (w: WriteChain<In>) => {
      w.write('w', '(DELETE FROM labels WHERE false RETURNING id)');
      // @ts-expect-error a write that declares no event cannot answer, so it is no statement
      return w.select('count(*) FROM w');
    };
    expect(() => writeStatement<In, unknown>('no-event', () => '', build as never).render({ id: 1 })).toThrow(TypeError);
  });

  it('puts the event last and drains every lock (in LOCK_ORDER of their tables) then every write, except what the event reads', () => {
    const s = writeStatement<In, unknown>(
      'order',
      () => '',
      (w) =>
        w
          .lock('t', 'tasks', `(SELECT id FROM tasks WHERE id = ${w.arg((i) => i.id, 'int')} FOR KEY SHARE)`)
          .check('c', '(SELECT 1)')
          .write('links', '(DELETE FROM task_labels WHERE false RETURNING task_id)')
          .lock('l', 'lists', '(SELECT id FROM lists WHERE false FOR KEY SHARE)')
          .write('w', '(DELETE FROM labels WHERE false RETURNING id)')
          .event(EVENT)
          .select('count(*) FROM w'),
    );
    const { text, values } = s.render({ id: 7 });
    expect(values).toEqual([7]);
    expect(text.split('\n').map((line) => line.split(' AS ')[0])).toEqual(['WITH t', 'c', 'links', 'l', 'w', 'ev', 'SELECT count(*) FROM w']);
    expect(text).toContain(`'l,t,links' AS drained`);
  });

  it('builds the text once per shape and reads only the values on later calls', () => {
    let builds = 0;
    const s = writeStatement<In, unknown>(
      'shape',
      (i) => sentKey(['name'], i),
      (w, sample) => {
        builds++;
        const id = w.arg((i) => i.id, 'int');
        const set = sample.name === undefined ? '' : `, name = ${w.arg((i) => i.name, 'text')}`;
        return w.noEvent('test').select(`${id}${set}`);
      },
    );
    const a = s.render({ id: 1, name: 'x' });
    const b = s.render({ id: 2, name: 'y' });
    const c = s.render({ id: 3 });
    expect(builds).toBe(2);
    expect(s.builtShapes).toBe(2);
    expect(b.text).toBe(a.text);
    expect([a.values, b.values, c.values]).toEqual([[1, 'x'], [2, 'y'], [3]]);
    expect(c.text).toBe('SELECT $1::int');
  });

  it('orders locks of one table as declared', () => {
    expect(
      drainOrder([
        { name: 'b', kind: 'lock', table: 'labels' },
        { name: 'a', kind: 'lock', table: 'labels' },
        { name: 'ws', kind: 'lock', table: 'workspaces' },
        { name: 'x', kind: 'check' },
      ]),
    ).toEqual(['ws', 'b', 'a']);
  });

  it('replaceSet: the rows not kept deleted and the kept ones inserted, both drained before the event', () => {
    const s = writeStatement<In, unknown>(
      'set',
      () => '',
      (w) => {
        w.write('w', '(UPDATE custom_fields SET name = name WHERE false RETURNING *)');
        return replaceSet(w, {
          names: ['drop_users', 'add_users'],
          table: 'custom_field_allowed_users',
          owner: 'w',
          keys: { field_id: 'id' },
          column: 'user_id',
          kept: `unnest(${w.arg((i) => [i.id], 'int[]')}) k(id)`,
          extra: { workspace_id: 'o.workspace_id' },
        })
          .event(EVENT)
          .select('1');
      },
    );
    const { text, values } = s.render({ id: 4 });
    expect(values).toEqual([[4]]);
    expect(text).toContain(`drop_users AS (DELETE FROM custom_field_allowed_users g USING w o
       WHERE g.field_id = o.id AND g.user_id NOT IN (SELECT k.id FROM unnest($1::int[]) k(id)) RETURNING 1)`);
    expect(text).toContain(`add_users AS (INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id)
       SELECT o.id, k.id, o.workspace_id FROM w o CROSS JOIN unnest($1::int[]) k(id)
       ON CONFLICT DO NOTHING RETURNING 1)`);
    expect(text).toContain(`'drop_users,add_users' AS drained`);
  });
});
