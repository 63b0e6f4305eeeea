import {
  accessAnswers,
  accessWording,
  decide,
  mayBeRestricted,
  memberChangeDenial,
  Membership,
  Operation,
  permitsFolder,
  permitsList,
  permitsListMove,
  POLICY,
  Role,
  roleIn,
} from './access.policy';

/**
 * The policy table written out from the decisions, independently of POLICY:
 * who may (D1), the message for the others (D2), and how access restriction
 * applies (D30): 'none' workspace-level, 'list' the target list must be
 * permitted, 'folder' the target folder must be granted, 'folderOrList' the
 * target folder must be granted or hold a permitted list (D39), 'deny' never.
 */
const TABLE: Record<
  Operation,
  { who: 'member' | 'writer' | 'manager' | 'owner'; denial: string | null; restriction: 'none' | 'list' | 'folder' | 'folderOrList' | 'deny' }
> = {
  'workspace.read': { who: 'member', denial: null, restriction: 'none' },
  'label.create': { who: 'manager', denial: 'Only owners and admins can create labels', restriction: 'none' },
  'label.delete': { who: 'manager', denial: 'Only owners and admins can delete labels', restriction: 'none' },
  'status.create': { who: 'manager', denial: 'Only owners and admins can create statuses', restriction: 'none' },
  'status.edit': { who: 'manager', denial: 'Only owners and admins can edit statuses', restriction: 'none' },
  'label.edit': { who: 'manager', denial: 'Only owners and admins can edit labels', restriction: 'none' },
  'status.delete': { who: 'manager', denial: 'Only owners and admins can delete statuses', restriction: 'none' },
  // D39: get folder and a folder's lists: a folder granted, or holding a permitted list.
  'folder.read': { who: 'member', denial: null, restriction: 'folderOrList' },
  'folder.create': { who: 'writer', denial: 'Viewers cannot create folders', restriction: 'deny' },
  'folder.edit': { who: 'writer', denial: 'Viewers cannot edit folders', restriction: 'folder' },
  'folder.delete': { who: 'manager', denial: 'Only owners and admins can delete folders', restriction: 'folder' },
  'list.read': { who: 'member', denial: null, restriction: 'list' },
  'list.create': { who: 'writer', denial: 'Viewers cannot create lists', restriction: 'folder' },
  'list.edit': { who: 'writer', denial: 'Viewers cannot edit lists', restriction: 'list' },
  'list.delete': { who: 'manager', denial: 'Only owners and admins can delete lists', restriction: 'list' },
  'task.read': { who: 'member', denial: null, restriction: 'list' },
  'task.create': { who: 'writer', denial: 'Viewers cannot create tasks', restriction: 'list' },
  'task.edit': { who: 'writer', denial: 'Viewers cannot edit tasks', restriction: 'list' },
  'task.delete': { who: 'writer', denial: 'Viewers cannot delete tasks', restriction: 'list' },
  'comment.read': { who: 'member', denial: null, restriction: 'list' },
  'comment.create': { who: 'writer', denial: 'Viewers cannot comment', restriction: 'list' },
  'comment.edit': { who: 'writer', denial: 'Viewers cannot edit comments', restriction: 'list' },
  'comment.delete': { who: 'writer', denial: 'Viewers cannot delete comments', restriction: 'list' },
  // D38: managers only, one message, restriction does not apply (managers are never restricted).
  'webhook.create': { who: 'manager', denial: 'Only owners and admins can manage webhooks', restriction: 'none' },
  'webhook.list': { who: 'manager', denial: 'Only owners and admins can manage webhooks', restriction: 'none' },
  'webhook.manage': { who: 'manager', denial: 'Only owners and admins can manage webhooks', restriction: 'none' },
  // D39: workspaces and members (the "or self" of the member routes: its own test below).
  'workspace.edit': { who: 'manager', denial: 'Only owners and admins can edit workspaces', restriction: 'none' },
  'workspace.delete': { who: 'owner', denial: 'Only the owner can delete the workspace', restriction: 'none' },
  'member.add': { who: 'manager', denial: 'Only owners and admins can manage members', restriction: 'none' },
  'member.edit': { who: 'manager', denial: 'Only owners and admins can manage members', restriction: 'none' },
  'member.remove': { who: 'manager', denial: 'Only owners and admins can manage members', restriction: 'none' },
  'member.access': { who: 'manager', denial: 'Only owners and admins can manage members', restriction: 'none' },
  // D39, D42: custom-field definitions, managers only, workspace-level (D30).
  'custom_field.create': { who: 'manager', denial: 'Only owners and admins can manage custom fields', restriction: 'none' },
  'custom_field.manage': { who: 'manager', denial: 'Only owners and admins can manage custom fields', restriction: 'none' },
  // D39, D47: attachments follow their task's list; confirm is part of uploading.
  'attachment.upload': { who: 'writer', denial: 'Viewers cannot upload attachments', restriction: 'list' },
  'attachment.list': { who: 'member', denial: null, restriction: 'list' },
  'attachment.confirm': { who: 'writer', denial: 'Viewers cannot upload attachments', restriction: 'list' },
  'attachment.download': { who: 'member', denial: null, restriction: 'list' },
  'attachment.delete': { who: 'writer', denial: 'Viewers cannot delete attachments', restriction: 'list' },
};

const ALLOWED: Record<'member' | 'writer' | 'manager' | 'owner', Role[]> = {
  member: ['owner', 'admin', 'member', 'viewer'],
  writer: ['owner', 'admin', 'member'],
  manager: ['owner', 'admin'],
  owner: ['owner'],
};

/** Grants of the restricted memberships below: folder 10 and list 21 (whose folder 20 is not granted). */
const GRANTS = { folderIds: [10], listIds: [21], listFolderIds: [20] };

/** Targets as (folderId, listId), with whether D29 permits the list and grants the folder. */
const TARGETS = [
  { name: 'a list in a granted folder', folderId: 10, listId: 11, listPermitted: true, folderGranted: true },
  { name: 'the granted folder itself', folderId: 10, listId: null, listPermitted: false, folderGranted: true },
  { name: 'a granted list in a folder not granted', folderId: 20, listId: 21, listPermitted: true, folderGranted: false },
  { name: 'a granted list without folder', folderId: null, listId: 21, listPermitted: true, folderGranted: false },
  { name: 'a list in a folder not granted', folderId: 30, listId: 31, listPermitted: false, folderGranted: false },
  { name: 'a list without folder, not granted', folderId: null, listId: 41, listPermitted: false, folderGranted: false },
  { name: 'no list and no folder (a task not in a list)', folderId: null, listId: null, listPermitted: false, folderGranted: false },
];

const MEMBERSHIPS: Array<{ name: string; membership: Membership }> = [
  { name: 'owner', membership: { role: 'owner', restricted: false, folderIds: [], listIds: [] } },
  { name: 'admin', membership: { role: 'admin', restricted: false, folderIds: [], listIds: [] } },
  { name: 'member', membership: { role: 'member', restricted: false, folderIds: [], listIds: [] } },
  { name: 'viewer', membership: { role: 'viewer', restricted: false, folderIds: [], listIds: [] } },
  // D29: only members and viewers can be restricted.
  { name: 'restricted member', membership: { role: 'member', restricted: true, ...GRANTS } },
  { name: 'restricted viewer', membership: { role: 'viewer', restricted: true, ...GRANTS } },
];

/** The expected decision, step 6 of D3: role first, then restriction. */
function expected(operation: Operation, membership: Membership, target: (typeof TARGETS)[number]): string | null {
  const rule = TABLE[operation];
  if (!ALLOWED[rule.who].includes(membership.role)) return rule.denial;
  if (!membership.restricted) return null;
  switch (rule.restriction) {
    case 'none':
      return null;
    case 'deny':
      return 'Access denied';
    case 'folder':
      return target.folderGranted ? null : 'Access denied';
    case 'folderOrList':
      return target.folderGranted || target.folderId === 20 ? null : 'Access denied';
    case 'list':
      return target.listPermitted ? null : 'Access denied';
  }
}

describe('access policy (D1, D2, D29, D30)', () => {
  it('decides exactly the operations of the table', () => {
    expect(Object.keys(POLICY).sort()).toEqual(Object.keys(TABLE).sort());
  });

  it('gives every role-limited operation its D2 message, and none to operations every member may do', () => {
    for (const [operation, rule] of Object.entries(TABLE)) {
      expect([operation, POLICY[operation as Operation].denial ?? null]).toEqual([operation, rule.denial]);
    }
  });

  const cases = (Object.keys(TABLE) as Operation[]).flatMap((operation) =>
    MEMBERSHIPS.flatMap(({ name, membership }) =>
      TARGETS.map((target) => ({ operation, who: name, membership, target, answer: expected(operation, membership, target) })),
    ),
  );

  it.each(cases)('$operation by the $who on $target.name: $answer', ({ operation, membership, target, answer }) => {
    expect(decide(membership, operation, target.folderId, target.listId)).toBe(answer);
  });

  describe('spot checks, literally', () => {
    const restrictedMember = MEMBERSHIPS[4].membership;
    const restrictedViewer = MEMBERSHIPS[5].membership;
    const viewer = MEMBERSHIPS[3].membership;

    it('a viewer reads but cannot write tasks or comments', () => {
      expect(decide(viewer, 'task.read', 30, 31)).toBeNull();
      expect(decide(viewer, 'comment.read', null, null)).toBeNull();
      expect(decide(viewer, 'task.create', 30, 31)).toBe('Viewers cannot create tasks');
      expect(decide(viewer, 'comment.create', 30, 31)).toBe('Viewers cannot comment');
      expect(decide(viewer, 'folder.delete', 30, null)).toBe('Only owners and admins can delete folders');
    });

    it('a restricted viewer gets the role message before the restriction (D3 step 6)', () => {
      expect(decide(restrictedViewer, 'task.edit', 30, 31)).toBe('Viewers cannot edit tasks');
      expect(decide(restrictedViewer, 'task.read', 30, 31)).toBe('Access denied');
      expect(decide(restrictedViewer, 'task.read', 10, 11)).toBeNull();
    });

    it('a restricted member: lists permitted by folder or by grant; never creates folders; workspace-level reads stay open', () => {
      expect(decide(restrictedMember, 'task.create', 10, 11)).toBeNull();
      expect(decide(restrictedMember, 'task.create', 20, 21)).toBeNull();
      expect(decide(restrictedMember, 'task.create', 30, 31)).toBe('Access denied');
      expect(decide(restrictedMember, 'task.read', null, null)).toBe('Access denied');
      expect(decide(restrictedMember, 'folder.create', null, null)).toBe('Access denied');
      expect(decide(restrictedMember, 'list.create', 10, null)).toBeNull();
      expect(decide(restrictedMember, 'list.create', 20, null)).toBe('Access denied');
      expect(decide(restrictedMember, 'workspace.read', null, null)).toBeNull();
      expect(decide(restrictedMember, 'folder.read', 30, null)).toBe('Access denied');
      expect(decide(restrictedMember, 'folder.read', 20, null)).toBeNull();
      expect(decide(restrictedMember, 'folder.read', 10, null)).toBeNull();
      expect(decide(restrictedMember, 'label.delete', null, null)).toBe('Only owners and admins can delete labels');
    });
  });
});

describe('member routes (D39, D41)', () => {
  const member: Membership = { role: 'member', restricted: false, folderIds: [], listIds: [] };
  const viewer: Membership = { role: 'viewer', restricted: true, folderIds: [], listIds: [] };

  it('remove and access allow the member themself whatever the role; add and edit never do', () => {
    for (const m of [member, viewer]) {
      expect(decide(m, 'member.remove', null, null, true)).toBeNull();
      expect(decide(m, 'member.access', null, null, true)).toBeNull();
      expect(decide(m, 'member.remove', null, null, false)).toBe('Only owners and admins can manage members');
      expect(decide(m, 'member.edit', null, null, true)).toBe('Only owners and admins can manage members');
    }
  });

  it.each([
    ['owner edits the owner (themself)', { kind: 'edit', callerRole: 'owner', self: true, targetRole: 'owner' }, 'The workspace owner cannot be changed'],
    [
      'admin edits the owner',
      { kind: 'edit', callerRole: 'admin', self: false, targetRole: 'owner', newRole: 'admin' },
      'The workspace owner cannot be changed',
    ],
    ['admin removes the owner', { kind: 'remove', callerRole: 'admin', self: false, targetRole: 'owner' }, 'The workspace owner cannot be removed'],
    ['owner removes themself', { kind: 'remove', callerRole: 'owner', self: true, targetRole: 'owner' }, 'The workspace owner cannot be removed'],
    ['admin adds an admin', { kind: 'add', callerRole: 'admin', self: false, targetRole: null, newRole: 'admin' }, 'Only the owner can manage admins'],
    ['admin adds a member', { kind: 'add', callerRole: 'admin', self: false, targetRole: null, newRole: 'member' }, null],
    ['owner adds an admin', { kind: 'add', callerRole: 'owner', self: false, targetRole: null, newRole: 'admin' }, null],
    ['admin edits an admin (empty PATCH)', { kind: 'edit', callerRole: 'admin', self: false, targetRole: 'admin' }, 'Only the owner can manage admins'],
    ['admin edits themself', { kind: 'edit', callerRole: 'admin', self: true, targetRole: 'admin', newRole: 'admin' }, 'Only the owner can manage admins'],
    [
      'admin makes a member admin',
      { kind: 'edit', callerRole: 'admin', self: false, targetRole: 'member', newRole: 'admin' },
      'Only the owner can manage admins',
    ],
    ['admin makes a member viewer', { kind: 'edit', callerRole: 'admin', self: false, targetRole: 'member', newRole: 'viewer' }, null],
    ['owner demotes an admin', { kind: 'edit', callerRole: 'owner', self: false, targetRole: 'admin', newRole: 'member' }, null],
    ['admin removes an admin', { kind: 'remove', callerRole: 'admin', self: false, targetRole: 'admin' }, 'Only the owner can manage admins'],
    ['admin removes themself', { kind: 'remove', callerRole: 'admin', self: true, targetRole: 'admin' }, null],
    ['member removes themself', { kind: 'remove', callerRole: 'member', self: true, targetRole: 'member' }, null],
    ['owner removes an admin', { kind: 'remove', callerRole: 'owner', self: false, targetRole: 'admin' }, null],
  ] as const)('%s: %p', (_name, change, answer) => {
    expect(memberChangeDenial(change)).toBe(answer);
  });

  it('only members and viewers may be restricted', () => {
    expect((['owner', 'admin', 'member', 'viewer'] as const).map(mayBeRestricted)).toEqual([false, false, true, true]);
  });
});

describe('roleIn, permitsList, permitsFolder', () => {
  it.each([
    ['owner', [true, true, true]],
    ['admin', [true, true, true]],
    ['member', [true, true, false]],
    ['viewer', [true, false, false]],
  ] as const)('%s is in member, writer, manager: %p', (role, [member, writer, manager]) => {
    expect([roleIn(role, 'member'), roleIn(role, 'writer'), roleIn(role, 'manager')]).toEqual([member, writer, manager]);
  });

  it('lets unrestricted memberships see every list and folder, tasks without list included', () => {
    const m: Membership = { role: 'member', restricted: false, folderIds: [], listIds: [] };
    expect(permitsList(m, null, null)).toBe(true);
    expect(permitsList(m, 5, 6)).toBe(true);
    expect(permitsFolder(m, null)).toBe(true);
    expect(permitsFolder(m, 6)).toBe(true);
  });

  it.each(TARGETS)('restricted, $name: list $listPermitted, folder $folderGranted', (target) => {
    const m: Membership = { role: 'member', restricted: true, ...GRANTS };
    expect(permitsList(m, target.listId, target.folderId)).toBe(target.listPermitted);
    expect(permitsFolder(m, target.folderId)).toBe(target.folderGranted);
  });
});

describe('permitsListMove (D33)', () => {
  const restricted: Membership = { role: 'member', restricted: true, ...GRANTS };
  it.each([
    ['from a granted folder to itself', 10, 10, true],
    ['from a folder not granted (the list granted on its own) to a granted folder', 20, 10, false],
    ['from a granted folder to a folder not granted', 10, 30, false],
    ['between two folders not granted', 20, 30, false],
  ] as const)('restricted, %s: %p', (_name, from, to, allowed) => {
    expect(permitsListMove(restricted, from, to)).toBe(allowed);
  });

  it('lets unrestricted memberships move lists anywhere', () => {
    expect(permitsListMove({ role: 'viewer', restricted: false, folderIds: [], listIds: [] }, 20, 30)).toBe(true);
  });
});

describe('what the OpenAPI document says of an operation, from the table', () => {
  it.each([
    [
      'task.create',
      { 403: ['Access denied', 'Viewers cannot create tasks'], 404: ['List not found in this workspace'] },
      'owners, admins and members (not viewers); an access-restricted member only within the lists permitted to them',
    ],
    [
      'folder.create',
      { 403: ['Viewers cannot create folders', 'Access denied'], 404: ['Workspace not found'] },
      'owners, admins and members (not viewers); not access-restricted members',
    ],
    [
      'folder.delete',
      { 403: ['Only owners and admins can delete folders', 'Access denied'], 404: ['Folder not found'] },
      'owners and admins only; an access-restricted member only within the folders granted to them',
    ],
    ['label.delete', { 403: ['Access denied', 'Only owners and admins can delete labels'], 404: ['Label not found'] }, 'owners and admins only'],
    ['workspace.read', { 403: [], 404: ['Workspace not found'] }, 'any member of the workspace'],
    [
      'folder.read',
      { 403: ['Access denied'], 404: ['Folder not found'] },
      'any member of the workspace; an access-restricted member only for folders granted to them or holding a list permitted to them',
    ],
    ['workspace.delete', { 403: ['Only the owner can delete the workspace'], 404: ['Workspace not found'] }, 'the workspace owner only'],
    [
      'member.remove',
      { 403: ['Only owners and admins can manage members'], 404: ['Workspace not found', 'Member not found'] },
      'owners and admins only, or the member themself',
    ],
    [
      'custom_field.manage',
      { 403: ['Access denied', 'Only owners and admins can manage custom fields'], 404: ['Custom field not found'] },
      'owners and admins only',
    ],
    ['custom_field.create', { 403: ['Only owners and admins can manage custom fields'], 404: ['Workspace not found'] }, 'owners and admins only'],
  ] as Array<[Operation, { 403: string[]; 404: string[] }, string]>)('%s', (operation, answers, wording) => {
    expect(accessAnswers(operation)).toEqual(answers);
    expect(accessWording(operation)).toBe(wording);
  });

  it('documents every 403 decide() can give for each operation (role message, restriction)', () => {
    const roles: Role[] = ['owner', 'admin', 'member', 'viewer'];
    for (const operation of Object.keys(POLICY) as Operation[]) {
      for (const role of roles) {
        for (const restricted of [false, true]) {
          const denial = decide({ role, restricted, folderIds: [], listIds: [] }, operation, 1, 1);
          if (denial) expect([operation, accessAnswers(operation)[403]]).toEqual([operation, expect.arrayContaining([denial])]);
        }
      }
    }
  });
});
