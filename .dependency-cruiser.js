/**
 * The layers of src/, bottom first: a module may import its own layer and the
 * layers below it, never one above (`npm run lint:deps`, run by .ci/run).
 * One domain per layer, so two domains never import each other both ways.
 * `*.spec.ts` files are tests and may use any layer's types as samples.
 * A new domain gets a row here, placed above everything it imports.
 */
const LAYERS = [
  // Environment and settings: read by everything, import nothing of ours.
  { name: 'config', path: '^src/config/' },
  // What every domain may use (auth, access, database, validation, HTTP pieces): imports no domain.
  { name: 'common', path: '^src/common/' },
  // The event log every write appends to in its own statement: under every domain that writes.
  { name: 'event-log', path: '^src/events/(event-types|events\\.sql)\\.ts$' },
  // The caller's own account: nothing but common.
  { name: 'users', path: '^src/users/' },
  // Workflow states; their D40 defaults are what a new workspace is created with.
  { name: 'statuses', path: '^src/statuses/' },
  // The container of everything else; creating one seeds the default statuses.
  { name: 'workspaces', path: '^src/workspaces/' },
  // Membership of a workspace (answers with the workspace's shape).
  { name: 'members', path: '^src/members/' },
  // Keys granted on workspaces.
  { name: 'api-keys', path: '^src/api-keys/' },
  // Field definitions and the D19 rules of where a field applies and who sees it.
  { name: 'custom-fields', path: '^src/custom-fields/' },
  // Labels: their own rows and events only.
  { name: 'labels', path: '^src/labels/' },
  // Comments: their own rows and events only.
  { name: 'comments', path: '^src/comments/' },
  // Tasks read statuses and the custom-field rules.
  { name: 'tasks', path: '^src/tasks/' },
  // Deleting a folder deletes its tasks (the tasks' delete statement).
  { name: 'folders', path: '^src/folders/' },
  // A list lives in a folder; deleting one deletes its tasks.
  { name: 'lists', path: '^src/lists/' },
  // Files attached to tasks.
  { name: 'attachments', path: '^src/attachments/' },
  // Delivers the event log to receivers.
  { name: 'webhooks', path: '^src/webhooks/' },
  // The events feed: reads the log and custom-field visibility.
  { name: 'events-feed', path: '^src/events/', pathNot: '^src/events/(event-types|events\\.sql)\\.ts$' },
  // Whole worlds written through the domains' repositories (CLI, demo, tests).
  { name: 'fixtures', path: '^src/fixtures/' },
  // Prometheus registry: counters of attachments and webhooks.
  { name: 'metrics', path: '^src/metrics/' },
  // Readiness and shutdown state.
  { name: 'health', path: '^src/health/' },
  // The API document: every route, the file routes and the metrics endpoint.
  { name: 'openapi', path: '^src/openapi/' },
  // Admin commands over fixtures and statuses.
  { name: 'cli', path: '^src/cli/' },
  // Composition: main, app module and setup, HTTP hooks; nothing imports it.
  { name: 'top', path: '^src/[^/]+\\.ts$' },
];

const SPEC = '\\.spec\\.ts$';

/** For each layer, a rule forbidding imports of every layer above it. */
const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `${layer.name}-imports-upward`,
  comment: `${layer.name} may import only the layers below it (${
    LAYERS.slice(0, i)
      .map((l) => l.name)
      .join(', ') || 'none'
  }); see LAYERS in .dependency-cruiser.js`,
  severity: 'error',
  from: { path: layer.path, pathNot: [layer.pathNot, SPEC].filter(Boolean) },
  to: { path: LAYERS.slice(i + 1).map((l) => l.path), pathNot: LAYERS.slice(0, i + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'A cycle between modules: one of them is in the wrong place.',
      severity: 'error',
      from: { path: '^src/', pathNot: SPEC },
      to: { circular: true },
    },
    {
      name: 'not-to-test',
      comment: 'src/ never imports test code.',
      severity: 'error',
      from: { path: '^src/', pathNot: SPEC },
      to: { path: ['^test/', SPEC] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
