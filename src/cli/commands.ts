import { Injectable } from '@nestjs/common';
import { readFileSync, writeFileSync } from 'fs';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { resolve } from 'path';

import { demoBanner, ensureDemo } from '../fixtures/demo';
import { loadFixture } from '../fixtures/fixture-loader';
import { addMember, CliError, cliId, cliIds, createKey, createUser, createWorkspace, listKeys, revokeKey } from './admin';
import { CliDatabase, logToStderr, migrateLocked } from './database';

/*
 * The commands of D32. Each prints its result (JSON, or the demo lines) to
 * stdout and nothing else; logs and errors go to stderr, and a failure sets
 * exit code 1.
 */

type Options = Record<string, string | boolean | undefined>;

/**
 * A path given on the command line. Under `npm run cli` the working directory
 * is the package root, so relative paths are taken from where npm was run
 * (INIT_CWD).
 */
export function cliPath(path: string): string {
  const base = process.env.npm_lifecycle_event === 'cli' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  return resolve(base, path);
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/** Runs `execute`, prints what it returns, and turns a failure into a message on stderr and exit code 1. */
@Injectable()
abstract class CliCommand extends CommandRunner {
  constructor(protected readonly db: CliDatabase) {
    super();
  }

  protected abstract execute(options: Options): Promise<string | undefined>;

  async run(_params: string[], options: Options = {}): Promise<void> {
    try {
      const out = await this.execute(options);
      if (out) process.stdout.write(out);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logToStderr(error instanceof CliError || (error as Error).name === 'FixtureError' ? message : `Error: ${message}`);
      process.exitCode = 1;
    }
  }
}

/** Prints the subcommands of a command group called without one. */
abstract class CommandGroup extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp({ error: true });
    process.exitCode = 1;
  }
}

@Command({ name: 'migrate', description: 'Run pending database migrations; prints {"applied": [...]}' })
export class MigrateCommand extends CliCommand {
  protected async execute(): Promise<string> {
    const ds = await this.db.open({ migrate: false });
    return json({ applied: await migrateLocked(ds) });
  }
}

/**
 * `seed` (D32): loads a fixture file (FIXTURES.md, docs/fixtures.md); prints
 * the ref -> id map, or writes it to --out.
 */
@Command({ name: 'seed', description: 'Load a fixture file (format: docs/fixtures.md); prints the ref -> id map, or writes it to --out' })
export class SeedCommand extends CliCommand {
  @Option({ flags: '-f, --file <path>', description: 'fixture JSON file', required: true })
  parseFile(value: string): string {
    return value;
  }

  @Option({ flags: '-o, --out <path>', description: 'write the ref -> id map here instead of stdout' })
  parseOut(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string | undefined> {
    const file = cliPath(String(options.file));
    let world: unknown;
    try {
      world = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new CliError(`Cannot read fixture ${file}: ${(error as Error).message}`);
    }
    const ids = await loadFixture(await this.db.open(), world);
    if (options.out) {
      const out = cliPath(String(options.out));
      writeFileSync(out, json(ids));
      logToStderr(`Loaded ${Object.keys(ids).length} refs from ${file}; ids written to ${out}`);
      return undefined;
    }
    return json(ids);
  }
}

@Command({ name: 'demo', description: 'Seed the demo workspace when absent; prints a demo API key and a curl line' })
export class DemoCommand extends CliCommand {
  protected async execute(): Promise<string> {
    const ds = await this.db.open();
    const demo = await ensureDemo(ds, { keyFile: this.db.demoKeyFile() });
    if (demo?.seeded) logToStderr('Seeded the demo workspace');
    return demoBanner(demo!.key, this.db.serverPort());
  }
}

@SubCommand({ name: 'create', description: 'Create a user; prints it as JSON' })
export class UsersCreateCommand extends CliCommand {
  @Option({ flags: '--email <email>', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--avatar-url <url>' })
  parseAvatarUrl(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string> {
    const user = await createUser(await this.db.open(), {
      email: String(options.email),
      name: String(options.name),
      avatarUrl: (options.avatarUrl as string | undefined) ?? null,
    });
    return json(user);
  }
}

@Command({ name: 'users', description: 'Manage users', subCommands: [UsersCreateCommand] })
export class UsersCommand extends CommandGroup {}

@SubCommand({ name: 'create', description: 'Create a workspace with the default statuses; prints it as JSON' })
export class WorkspacesCreateCommand extends CliCommand {
  @Option({ flags: '--name <name>', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--slug <slug>', required: true })
  parseSlug(value: string): string {
    return value;
  }

  @Option({ flags: '--owner <userId>', required: true })
  parseOwner(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string> {
    const ownerId = cliId(options.owner, '--owner');
    return json(await createWorkspace(await this.db.open(), { name: String(options.name), slug: String(options.slug), ownerId }));
  }
}

@Command({ name: 'workspaces', description: 'Manage workspaces', subCommands: [WorkspacesCreateCommand] })
export class WorkspacesCommand extends CommandGroup {}

@SubCommand({ name: 'add', description: 'Add a member to a workspace; prints the membership as JSON' })
export class MembersAddCommand extends CliCommand {
  @Option({ flags: '--workspace <id>', required: true })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--user <id>', required: true })
  parseUser(value: string): string {
    return value;
  }

  @Option({ flags: '--role <role>', description: 'owner, admin, member or viewer', required: true })
  parseRole(value: string): string {
    return value;
  }

  @Option({ flags: '--restricted', description: 'access-restricted member (members and viewers only)' })
  parseRestricted(): boolean {
    return true;
  }

  @Option({ flags: '--folders <ids>', description: 'comma-separated folder ids granted to a restricted member' })
  parseFolders(value: string): string {
    return value;
  }

  @Option({ flags: '--lists <ids>', description: 'comma-separated list ids granted to a restricted member' })
  parseLists(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string> {
    const input = {
      workspaceId: cliId(options.workspace, '--workspace'),
      userId: cliId(options.user, '--user'),
      role: String(options.role),
      restricted: options.restricted === true,
      folderIds: cliIds(options.folders, '--folders'),
      listIds: cliIds(options.lists, '--lists'),
    };
    return json(await addMember(await this.db.open(), input));
  }
}

@Command({ name: 'members', description: 'Manage workspace members', subCommands: [MembersAddCommand] })
export class MembersCommand extends CommandGroup {}

@SubCommand({
  name: 'create',
  description: 'Create an API key; prints the plain key (shown once) on stdout, its record on stderr; --json prints the whole record',
})
export class KeysCreateCommand extends CliCommand {
  @Option({ flags: '--user <id>', required: true })
  parseUser(value: string): string {
    return value;
  }

  @Option({ flags: '--scopes <scopes>', description: 'comma-separated scopes, e.g. tasks:read,tasks:write', required: true })
  parseScopes(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--expires-at <iso>', description: 'ISO 8601 timestamp (UTC when no zone)' })
  parseExpiresAt(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'print the whole record (with the key) as JSON on stdout' })
  parseJson(): boolean {
    return true;
  }

  /** D32: "prints the new key once": the bare key on stdout, so `KEY=$(npm run cli -- keys create ...)` works. */
  protected async execute(options: Options): Promise<string> {
    const userId = cliId(options.user, '--user');
    const key = await createKey(await this.db.open(), {
      userId,
      scopes: String(options.scopes).split(','),
      name: (options.name as string | undefined) ?? null,
      expiresAt: (options.expiresAt as string | undefined) ?? null,
    });
    if (options.json) return json(key);
    const { key: plain, ...record } = key;
    logToStderr(`Created API key ${JSON.stringify(record)}`);
    return plain + '\n';
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke an API key; prints it (without hash) as JSON' })
export class KeysRevokeCommand extends CliCommand {
  @Option({ flags: '--id <id>', required: true })
  parseId(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string> {
    const id = cliId(options.id, '--id');
    return json(await revokeKey(await this.db.open(), id));
  }
}

@SubCommand({ name: 'list', description: "List a user's API keys (never their hashes) as JSON" })
export class KeysListCommand extends CliCommand {
  @Option({ flags: '--user <id>', required: true })
  parseUser(value: string): string {
    return value;
  }

  protected async execute(options: Options): Promise<string> {
    const userId = cliId(options.user, '--user');
    return json(await listKeys(await this.db.open(), userId));
  }
}

@Command({ name: 'keys', description: 'Manage API keys', subCommands: [KeysCreateCommand, KeysRevokeCommand, KeysListCommand] })
export class KeysCommand extends CommandGroup {}

/** Every command and subcommand class, for the CLI module's providers. */
export const COMMANDS = [
  MigrateCommand,
  SeedCommand,
  DemoCommand,
  UsersCommand,
  UsersCreateCommand,
  WorkspacesCommand,
  WorkspacesCreateCommand,
  MembersCommand,
  MembersAddCommand,
  KeysCommand,
  KeysCreateCommand,
  KeysRevokeCommand,
  KeysListCommand,
];
