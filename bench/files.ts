import 'reflect-metadata';
import { ChildProcess, spawn } from 'child_process';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { Agent, createServer, request as httpRequest, type IncomingMessage } from 'http';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { Client } from 'pg';
import { pipeline } from 'stream/promises';
import { SCOPES } from '../src/common/auth/scope';
import { openDatabase } from '../src/common/database/data-source';
import { freePort } from '../src/common/database/embedded';
import { loadFixture } from '../src/fixtures/fixture-loader';

/*
 * `npm run bench:files` (issue 36): attachments on the local driver, beside a plain
 * Node stream copy as the floor, in the same run.
 *
 * - Needs DATABASE_URL (a server where it may create and drop a database `bench_files_<pid>`).
 * - Server: `node dist/main.js` in its own process (STORAGE_DIR in a temporary directory).
 * - Scenarios: multipart upload of 1 MiB and 25 MiB (the floor: a Node server piping the
 *   request to a file), and download of the same through the 302 (the floor: a Node
 *   server piping the file to the socket). MiB/s of each, one request at a time, and the
 *   ratio to the floor.
 * - Memory: the server's RSS before and at its peak while 8 uploads of 25 MiB run at once
 *   (growth per concurrent upload), and get task's p99 latency idle and while they run.
 * - Output: a table on stdout and bench/results/<time>-files.json.
 */

const MiB = 1024 * 1024;
const KEY = 'svc_bench_files_0123456789abcdef0123456789abcdef';
const SERVER = resolve(join(__dirname, '..', 'dist', 'main.js'));
const ROUNDS: Record<number, number> = { [1 * MiB]: 30, [25 * MiB]: 4 };
/** Kept-alive connections, as a real client keeps them. */
const AGENT = new Agent({ keepAlive: true, maxSockets: 16 });
const log = (line: string) => process.stderr.write(line + '\n');

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  bytes: number;
}

/** One HTTP request to 127.0.0.1:`port`; the answer's body is counted, not kept. */
function send(port: number, method: string, path: string, headers: Record<string, string | number> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent: AGENT, headers: { ...headers, ...(body ? { 'content-length': body.length } : {}) } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    });
    req.on('error', fail);
    // Headers and body leave at once (no Nagle wait between them), as a tuned client sends them.
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.end(body);
  });
}

/** MiB/s of `rounds` runs of `run` moving `size` bytes each. */
async function rate(size: number, rounds: number, run: () => Promise<void>): Promise<number> {
  await run(); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return (size * rounds) / MiB / seconds;
}

/** Resident set size of process `pid`, in MiB. */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

function multipart(size: number): { body: Buffer; type: string } {
  const boundary = 'bench-boundary-1234567890';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  return { body: Buffer.concat([head, Buffer.alloc(size, 0x61), Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/** The floor: a plain Node server that pipes request bodies to files and files to sockets. */
async function floorServer(dir: string): Promise<{ port: number; close: () => void }> {
  let n = 0;
  const server = createServer((req, res) => {
    if (req.method === 'PUT') {
      const path = join(dir, `in-${n++}`);
      void pipeline(req, createWriteStream(path)).then(() => res.writeHead(204).end());
    } else {
      const path = join(dir, decodeURIComponent(req.url!.slice(1)));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      void pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), res).catch(() => undefined);
    }
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is required');
  const dbName = `bench_files_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const work = mkdtempSync(join(tmpdir(), 'bench-files-'));
  let server: ChildProcess | undefined;
  let floor: { port: number; close: () => void } | undefined;
  try {
    const ds = await openDatabase(url.toString(), true);
    const ids = await loadFixture(ds, {
      users: [{ ref: 'owner', email: 'owner@bench.files', name: 'Owner' }],
      api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
      workspaces: [{ ref: 'ws', name: 'Bench files', slug: 'bench-files', owner: 'owner', lists: [{ ref: 'l', name: 'L' }], tasks: [{ ref: 't', list: 'l', title: 'Files' }] }],
    });
    await ds.destroy();

    const port = await freePort();
    server = spawn(process.execPath, [SERVER], {
      env: {
        ...process.env, DATABASE_URL: url.toString(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
        STORAGE_DIR: join(work, 'storage'), WEBHOOK_WORKER: 'false', ATTACHMENT_WORKER: 'false', WEB_CONCURRENCY: '1',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; ; i++) {
      const up = await send(port, 'GET', '/health').then((a) => a.status === 200, () => false);
      if (up) break;
      if (i > 300) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    mkdirSync(join(work, 'floor'));
    floor = await floorServer(join(work, 'floor'));
    const auth = { authorization: `Bearer ${KEY}` };
    const rows: { scenario: string; size: string; service: number; floor: number; ratio: number }[] = [];

    for (const size of [1 * MiB, 25 * MiB]) {
      const { body, type } = multipart(size);
      const raw = Buffer.alloc(size, 0x61);
      const label = `${size / MiB} MiB`;
      const upload = await rate(size, ROUNDS[size], async () => {
        const a = await send(port, 'POST', `/api/v1/tasks/${ids.t}/attachments`, { ...auth, 'content-type': type }, body);
        if (a.status !== 201) throw new Error(`upload answered ${a.status}`);
      });
      const list = await new Promise<string>((done) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: `/api/v1/tasks/${ids.t}/attachments`, headers: auth }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => done(text));
        });
        req.end();
      });
      const lastId = (JSON.parse(list) as { id: number; file_size: number }[]).filter((a) => a.file_size === size).pop()!.id;
      const floorUpload = await rate(size, ROUNDS[size], async () => {
        await send(floor!.port, 'PUT', '/', {}, raw);
      });
      writeFileSync(join(work, 'floor', `out-${size}`), raw);
      const download = await rate(size, ROUNDS[size], async () => {
        const redirect = await send(port, 'GET', `/api/v1/attachments/${lastId}/download`, auth);
        const link = new URL(redirect.headers.location as string);
        const a = await send(port, 'GET', link.pathname);
        if (a.bytes !== size) throw new Error(`download gave ${a.bytes} bytes`);
      });
      const floorDownload = await rate(size, ROUNDS[size], async () => {
        const a = await send(floor!.port, 'GET', `/out-${size}`);
        if (a.bytes !== size) throw new Error('floor download short');
      });
      rows.push({ scenario: 'multipart upload', size: label, service: upload, floor: floorUpload, ratio: upload / floorUpload });
      rows.push({ scenario: 'download via 302', size: label, service: download, floor: floorDownload, ratio: download / floorDownload });
      log(`${label}: upload ${upload.toFixed(0)} MiB/s (floor ${floorUpload.toFixed(0)}), download ${download.toFixed(0)} MiB/s (floor ${floorDownload.toFixed(0)})`);
    }

    // Memory and latency under 8 concurrent 25 MiB uploads.
    const p99 = async (ms: number): Promise<number> => {
      const times: number[] = [];
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const start = process.hrtime.bigint();
        await send(port, 'GET', `/api/v1/tasks/${ids.t}`, auth);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length * 0.99)];
    };
    const idleP99 = await p99(2000);
    const before = rssMiB(server.pid!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server!.pid!))), 20);
    const { body, type } = multipart(25 * MiB);
    const uploads = Promise.all(Array.from({ length: 8 }, () => send(port, 'POST', `/api/v1/tasks/${ids.t}/attachments`, { ...auth, 'content-type': type }, body)));
    const busyP99 = await p99(1500);
    const answers = await uploads;
    clearInterval(sampler);
    if (answers.some((a) => a.status !== 201)) throw new Error('a concurrent upload failed');
    const growth = (peak - before) / 8;

    console.log('| scenario | size | service MiB/s | floor MiB/s | ratio |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.scenario} | ${r.size} | ${r.service.toFixed(0)} | ${r.floor.toFixed(0)} | ${r.ratio.toFixed(2)} |`);
    console.log(`\nRSS before ${before.toFixed(1)} MiB, peak during 8 concurrent 25 MiB uploads ${peak.toFixed(1)} MiB: ${growth.toFixed(2)} MiB per upload`);
    console.log(`get task p99: ${idleP99.toFixed(2)} ms idle, ${busyP99.toFixed(2)} ms during the uploads (${(busyP99 / idleP99).toFixed(2)}x)`);
    const results = join(__dirname, 'results');
    mkdirSync(results, { recursive: true });
    writeFileSync(
      join(results, `${new Date().toISOString().replace(/[:.]/g, '-')}-files.json`),
      JSON.stringify({ rows, rss: { beforeMiB: before, peakMiB: peak, growthPerUploadMiB: growth }, getTaskP99: { idleMs: idleP99, busyMs: busyP99 } }, null, 2) + '\n',
    );
  } finally {
    floor?.close();
    server?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(String((error as Error).stack ?? error));
  process.exit(1);
});
