import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import { chmodSync, mkdirSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join, parse, resolve, sep } from 'path';

/** An OS user as far as directory permissions go. */
export interface OsUser {
  uid: number;
  /** Its primary and supplementary groups. */
  gids: number[];
}

/** What permission checks need of a directory. */
export interface DirStat {
  uid: number;
  gid: number;
  mode: number;
}

/** `stat` of an existing directory, else null. */
function statDir(path: string): DirStat | null {
  try {
    const st = statSync(path);
    return st.isDirectory() ? { uid: st.uid, gid: st.gid, mode: st.mode } : null;
  } catch {
    return null;
  }
}

/** True when `user` may enter (search, `x`) a directory with `st`, by the owner, group and other bits. */
export function mayEnter(user: OsUser, st: DirStat): boolean {
  if (st.uid === user.uid) return (st.mode & 0o100) !== 0;
  if (user.gids.includes(st.gid)) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * The first directory on the way to `path` (from `/` down to `path` itself)
 * that `user` may not enter, or null when it may reach `path`. Directories that
 * do not exist yet end the walk: they will be created, readable by all.
 */
export function firstBlockedDirectory(path: string, user: OsUser, stat: (p: string) => DirStat | null = statDir): string | null {
  const target = resolve(path);
  const root = parse(target).root;
  const dirs = [root];
  for (const part of target.slice(root.length).split(sep).filter(Boolean)) dirs.push(join(dirs[dirs.length - 1], part));
  for (const dir of dirs) {
    const st = stat(dir);
    if (!st) return null;
    if (!mayEnter(user, st)) return dir;
  }
  return null;
}

/** The OS user `name` (uid and groups), or null when there is none. */
export function osUser(name: string): OsUser | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gids = execFileSync('id', ['-G', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(uid) ? { uid, gids } : null;
  } catch {
    return null;
  }
}

/** Name of the directory that holds, per checkout, what the OS user `postgres` could not reach where it was. */
const REACHABLE_NAME = 'work-tracking-api';

/**
 * The directory for embedded PostgreSQL's programs and data when the OS user `postgres` cannot reach
 * them where they are (a checkout under /root, mode 0700): `/var/lib/work-tracking-api` when it can be made and
 * reached, else `<tmpdir>/work-tracking-api`. Created mode 0755.
 */
export function reachableHome(user: OsUser | null): string {
  const who = user ?? { uid: -1, gids: [] };
  for (const home of [join('/var/lib', REACHABLE_NAME), join(tmpdir(), REACHABLE_NAME)]) {
    try {
      mkdirSync(home, { recursive: true, mode: 0o755 });
      chmodSync(home, 0o755);
      if (!firstBlockedDirectory(home, who)) return home;
    } catch {
      // not writable here: try the next place
    }
  }
  throw new Error(`No directory the OS user "postgres" may enter could be made (tried /var/lib and ${tmpdir()}): set DATABASE_URL`);
}

/** A stable place under `home` for `kind` (`pg` programs, `data`) of `source`: one per source path, so per checkout and data directory. */
export function reachablePlace(home: string, kind: 'pg' | 'data', source: string): string {
  return join(home, `${kind}-${createHash('sha256').update(resolve(source)).digest('hex').slice(0, 12)}`);
}
