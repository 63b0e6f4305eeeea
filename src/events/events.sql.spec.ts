import { SqlParams } from '../common/database/sql-params';
import { eventCtes, EVENTS_LOCK_NAMESPACE } from './events.sql';

/** D37: the shape of the outbox CTEs every write statement appends. */
describe('eventCtes', () => {
  const actor = { userId: 7, keyId: 3 };

  it("reads the write's rows, then takes the workspace lock, then draws the id from the lock's result", () => {
    const p = new SqlParams();
    p.add(1);
    const [row, lock, insert] = eventCtes(p, actor, { type: 'label.created', from: 'lb', workspace: 'lb.workspace_id', data: { label_id: 'lb.id' } });
    expect(row).toMatch(
      /^event_row AS MATERIALIZED \(\s+SELECT lb\.workspace_id AS workspace_id, jsonb_build_object\('label_id', lb\.id\) AS data\s+FROM lb\)$/,
    );
    expect(lock).toContain(`pg_advisory_xact_lock_shared(${EVENTS_LOCK_NAMESPACE}, r.workspace_id)::text = '' AS locked FROM event_row r`);
    expect(insert).toContain(
      `SELECT CASE WHEN l.locked THEN nextval('events_id_seq') END, l.workspace_id, 'label.created', now(),\n              $2::int, $3::int, l.data\n         FROM event_lock l`,
    );
    expect(p.values).toEqual([1, 7, 3]);
  });

  it('updates: sorted `changes` from the fields that differ, no row (no lock, no event) when none does; drained CTEs first', () => {
    const [row] = eventCtes(new SqlParams(), actor, {
      type: 'status.updated',
      from: 'r JOIN old ON old.id = r.id',
      workspace: 'r.workspace_id',
      data: { status_id: 'r.id' },
      changes: { position: 'p', name: 'n', icon: 'i', color: 'c', category: 'k' },
      drain: ['links'],
    });
    expect(row).toContain(`jsonb_build_object('status_id', r.id, 'changes', to_jsonb(changed.names))`);
    expect(row).toContain(
      `CROSS JOIN LATERAL (SELECT array_remove(ARRAY[CASE WHEN k THEN 'category' END, CASE WHEN c THEN 'color' END, CASE WHEN i THEN 'icon' END, CASE WHEN n THEN 'name' END, CASE WHEN p THEN 'position' END]::text[], NULL) AS names) changed`,
    );
    expect(row).toContain('WHERE (SELECT count(*) FROM links) >= 0 AND cardinality(changed.names) > 0');
  });

  it('every data key of the type, in table order', () => {
    const [row] = eventCtes(new SqlParams(), actor, {
      type: 'task.updated',
      from: 't',
      workspace: 't.w',
      data: { task_id: 'a', list_id: 'b', previous_list_id: 'c', parent_id: 'd' },
      changes: {
        assignee_ids: 'x',
        custom_fields: 'x',
        description: 'x',
        due_date: 'x',
        label_ids: 'x',
        list_id: 'x',
        parent_id: 'x',
        priority: 'x',
        start_date: 'x',
        status_id: 'x',
        title: 'x',
      },
    });
    expect(row).toContain(`jsonb_build_object('task_id', a, 'list_id', b, 'previous_list_id', c, 'parent_id', d, 'changes', to_jsonb(changed.names))`);
  });
});
