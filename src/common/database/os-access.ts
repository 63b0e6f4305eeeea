import { execFileSync } from 'child_process';
import { statSync } from 'fs';
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
    const gids = execFileSync('id', ['-G', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(/\s+/).map(Number);
    return Number.isInteger(uid) ? { uid, gids } : null;
  } catch {
    return null;
  }
}

/**
 * Issue 8: as root, the embedded PostgreSQL runs as the OS user `postgres`,
 * which must reach its programs (`binDir`) and its data (`dataDir`). Returns the
 * one sentence telling what to do when it cannot, else null. A user that does
 * not exist yet (created on first start) counts as a stranger to every directory.
 */
export function postgresAccessProblem(binDir: string, dataDir: string, user: OsUser | null, stat?: (p: string) => DirStat | null): string | null {
  const who = user ?? { uid: -1, gids: [] };
  const blockedBin = firstBlockedDirectory(binDir, who, stat);
  if (blockedBin) {
    return (
      `The embedded PostgreSQL runs as the OS user "postgres" (PostgreSQL refuses to run as root), and that user cannot enter ${blockedBin}, ` +
      `on the way to its programs in ${binDir}: move the project to a directory every user may enter (e.g. /srv or /opt, not /root), ` +
      `run npm start as a user other than root, or set DATABASE_URL to a PostgreSQL server of your own.`
    );
  }
  const blockedData = firstBlockedDirectory(dataDir, who, stat);
  if (blockedData) {
    return (
      `The embedded PostgreSQL runs as the OS user "postgres" (PostgreSQL refuses to run as root), and that user cannot enter ${blockedData}, ` +
      `on the way to its data directory ${dataDir}: set DATA_DIR to a directory every user may enter (e.g. /var/lib/work-tracking), ` +
      `run npm start as a user other than root, or set DATABASE_URL to a PostgreSQL server of your own.`
    );
  }
  return null;
}
