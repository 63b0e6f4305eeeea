import { DirStat, firstBlockedDirectory, mayEnter, postgresAccessProblem } from './os-access';

/** Issue 8 item 10: may the OS user `postgres` reach the embedded PostgreSQL's programs and data? */

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

describe('postgresAccessProblem', () => {
  it('is null when programs and data are reachable', () => {
    expect(postgresAccessProblem('/srv/app/node_modules/pg', '/srv/app/.data/pg', PG, stat)).toBeNull();
  });

  it('names the blocked directory and what to do for programs under /root', () => {
    expect(postgresAccessProblem('/root/app/node_modules/pg', '/root/app/.data/pg', PG, stat)).toBe(
      'The embedded PostgreSQL runs as the OS user "postgres" (PostgreSQL refuses to run as root), and that user cannot enter /root, ' +
        'on the way to its programs in /root/app/node_modules/pg: move the project to a directory every user may enter (e.g. /srv or /opt, not /root), ' +
        'run npm start as a user other than root, or set DATABASE_URL to a PostgreSQL server of your own.',
    );
  });

  it('points to DATA_DIR when only the data directory is out of reach', () => {
    expect(postgresAccessProblem('/srv/app/node_modules/pg', '/srv/private/data/pg', PG, stat)).toMatch(
      /^The embedded PostgreSQL runs as the OS user "postgres" .* cannot enter \/srv\/private, on the way to its data directory \/srv\/private\/data\/pg: set DATA_DIR to /,
    );
  });
});
