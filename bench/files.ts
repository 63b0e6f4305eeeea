import { type ChildProcess, execFileSync, spawn } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { Agent, type IncomingMessage, request as httpRequest } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';

import { SCOPES } from '../src/common/auth/scope';
import { openDatabase } from '../src/common/database/data-source';
import { loadFixture } from '../src/fixtures/fixture-loader';
import { childrenOf, CLOCK_TICKS_PER_S, hasTaskset, processTable } from './proc';
import { SERVER, startServer, stopServer } from './server';

/*
 * `npm run bench -- --files [--only <ids>]` (issue 36; `npm run bench:files` is the same):
 * attachments on the local driver, side by side in the same run with a plain Node
 * stream copy as the floor.
 *
 * - Needs DATABASE_URL (a server where it may create and drop a database `bench_files_<pid>`).
 * - Server: `node dist/main.js` (BENCH_SERVER: another build), one process pinned to CPU 0
 *   as in the other scenarios, STORAGE_DIR in a temporary directory; its database connection
 *   goes through a counting proxy (round trips: every Query and Sync message it sends), a
 *   process of its own.
 * - Scenarios (`--only`, comma-separated ids; default all):
 *   - `upload-1mib`, `upload-25mib`: multipart upload, one request at a time; the floor is
 *     a Node server piping the request to a file (socket -> file). `upload-keyed-1mib`,
 *     `upload-keyed-25mib`: the same, each with an Idempotency-Key of its own (D35: the body is
 *     read ahead of the request).
 *   - `download-1mib`, `download-25mib`: GET download (302) then GET of the link; the floor
 *     pipes a file to the socket (file -> socket). Also the median ms of the 302, of the
 *     link's GET and of the floor's GET (where a download's time goes).
 *   - `uploads-8x25mib`: the server's RSS growth per upload while 8 uploads of 25 MiB run at
 *     once (BENCH_BATCHES such batches in a row, default 3), and get task's p99 idle and while they run (asked
 *     one at a time by a prober process of its own, so the uploading client does not delay it).
 *   Service and floor requests alternate (one of each per round), so a busy machine slows
 *   both alike: the ratio is the figure to read. Per service request: Node CPU ms (server
 *   process, /proc) and database round trips.
 * - Output: a table on stdout and bench/results/<time>-files.json.
 */

const MiB = 1024 * 1024;
const KEY = 'svc_bench_files_0123456789abcdef0123456789abcdef';
const ROUNDS: Record<number, number> = { [1 * MiB]: 40, [25 * MiB]: 6 };
/** The scenario ids `--only` takes. */
export const FILE_SCENARIOS = [
  'upload-1mib',
  'upload-25mib',
  'upload-keyed-1mib',
  'upload-keyed-25mib',
  'download-1mib',
  'download-25mib',
  'uploads-8x25mib',
] as const;
/** Kept-alive connections, as a real client keeps them. */
const AGENT = new Agent({ keepAlive: true, maxSockets: 16 });
const log = (line: string) => process.stderr.write(line + '\n');

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  bytes: number;
  text: string;
}

/** One HTTP request to 127.0.0.1:`port`; the answer's body is counted (and kept when short). */
function send(port: number, method: string, path: string, headers: Record<string, string | number> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, agent: AGENT, headers: { ...headers, ...(body ? { 'content-length': body.length } : {}) } },
      (res) => {
        let bytes = 0;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (text.length < 4096) text += chunk.toString();
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, bytes, text }));
      },
    );
    req.on('error', fail);
    // Headers and body leave at once (no Nagle wait between them), as a tuned client sends them.
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.end(body);
  });
}

/** Resident set size of process `pid`, in MiB. */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** user + system CPU ms of process `pid` and its descendants. */
function treeCpuMs(pid: number): number {
  const table = processTable();
  const ticks = (p: number): number => (table.get(p)?.cpuTicks ?? 0) + childrenOf(p, table).reduce((sum, c) => sum + ticks(c), 0);
  return (ticks(pid) * 1000) / CLOCK_TICKS_PER_S;
}

function multipart(size: number): { body: Buffer; type: string } {
  const boundary = 'bench-boundary-1234567890';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  return { body: Buffer.concat([head, Buffer.alloc(size, 0x61), Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The floor: a plain Node server, in a process of its own placed as the service is (CPU 0),
 * that pipes request bodies to files and files to sockets.
 */
async function floorServer(dir: string): Promise<{ port: number; pid: number; close: () => Promise<void> }> {
  const script = `
    const { createServer } = require('http');
    const { createReadStream, createWriteStream } = require('fs');
    const { pipeline } = require('stream/promises');
    const { join } = require('path');
    const dir = ${JSON.stringify(dir)};
    let n = 0;
    const server = createServer((req, res) => {
      if (req.method === 'PUT') {
        void pipeline(req, createWriteStream(join(dir, 'in-' + (n++ % 4)))).then(() => res.writeHead(204).end());
      } else {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        void pipeline(createReadStream(join(dir, decodeURIComponent(req.url.slice(1))), { highWaterMark: 1024 * 1024 }), res).catch(() => undefined);
      }
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
  const args = ['-e', script];
  const child = hasTaskset ? spawn('taskset', ['-c', '0', process.execPath, ...args]) : spawn(process.execPath, args);
  const port = await new Promise<number>((done, fail) => {
    child.stdout!.once('data', (data: Buffer) => done(Number(data.toString().trim())));
    child.once('exit', (code) => fail(new Error(`floor server exited with ${code}`)));
  });
  // Under taskset, the node process is taskset's child (exec keeps the pid).
  return { port, pid: child.pid!, close: () => stopServer(child) };
}

/**
 * A TCP proxy to PostgreSQL that counts the round trips its clients start: each simple
 * Query ('Q') and each Sync ('S') of the extended protocol is one wait for the server.
 * It runs in a process of its own (on the load's CPU, as the prober): in this process its
 * forwarding would wait behind the uploads this process sends, and every statement of the
 * server (get task's during `uploads-8x25mib` included) with it.
 */
async function countingProxy(target: URL): Promise<{ url: string; roundTrips: () => Promise<number>; close: () => void }> {
  const script = `
    const net = require('net');
    let trips = 0;
    const server = net.createServer((client) => {
      const upstream = net.connect(${Number(target.port || 5432)}, ${JSON.stringify(target.hostname)});
      // As the server's own connection would: no Nagle delay on either side.
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      let pending = Buffer.alloc(0);
      let started = false;
      client.on('data', (chunk) => {
        upstream.write(chunk);
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (;;) {
          if (!started) {
            // Startup, SSLRequest or GSSENCRequest: a length, no type byte.
            if (pending.length < 8) break;
            const length = pending.readInt32BE(0);
            if (pending.length < length) break;
            const code = pending.readInt32BE(4);
            if (code !== 80877103 && code !== 80877104) started = true;
            pending = pending.subarray(length);
            continue;
          }
          if (pending.length < 5) break;
          const length = pending.readInt32BE(1);
          if (pending.length < length + 1) break;
          const type = String.fromCharCode(pending[0]);
          if (type === 'Q' || type === 'S') trips++;
          pending = pending.subarray(length + 1);
        }
      });
      upstream.on('data', (chunk) => client.write(chunk));
      const end = () => { client.destroy(); upstream.destroy(); };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    // One line in ('count'), one line out (the round trips so far); stdin closed: exit.
    let input = '';
    process.stdin.on('data', (data) => {
      input += data;
      for (let at = input.indexOf('\\n'); at >= 0; at = input.indexOf('\\n')) {
        input = input.slice(at + 1);
        process.stdout.write(trips + '\\n');
      }
    });
    process.stdin.on('end', () => process.exit(0));`;
  const child = hasTaskset ? spawn('taskset', ['-c', '1', process.execPath, '-e', script]) : spawn(process.execPath, ['-e', script]);
  const waiting: Array<(line: string) => void> = [];
  let out = '';
  child.stdout!.on('data', (data: Buffer) => {
    out += data.toString();
    for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
      const line = out.slice(0, at);
      out = out.slice(at + 1);
      waiting.shift()?.(line);
    }
  });
  const nextLine = () => new Promise<string>((done) => waiting.push(done));
  const port = await nextLine();
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = port;
  return {
    url: url.toString(),
    roundTrips: async () => {
      const line = nextLine();
      child.stdin!.write('count\n');
      return Number(await line);
    },
    close: () => void child.stdin!.end(),
  };
}

/** One row of the table: the service beside its floor. */
interface FileRow {
  scenario: string;
  serviceMiBs: number;
  floorMiBs: number;
  ratio: number;
  nodeCpuMsPerReq: number;
  floorCpuMsPerReq: number;
  roundTripsPerReq: number;
  /** Downloads: the medians of the 302, of the link's GET and of the floor's GET. */
  medianMs?: { redirect: number; link: number; floor: number };
}

/**
 * `rounds` rounds (after one of warm-up), each running `service` then `floor` once, `size`
 * bytes each: MiB/s of both, and per service run its server CPU ms and round trips.
 */
async function sideBySide(
  name: string,
  size: number,
  rounds: number,
  pids: { service: number; floor: number },
  roundTrips: () => Promise<number>,
  service: () => Promise<void>,
  floor: () => Promise<void>,
): Promise<FileRow> {
  await service();
  await floor();
  let serviceNs = 0n;
  let floorNs = 0n;
  const cpu0 = treeCpuMs(pids.service);
  const floorCpu0 = treeCpuMs(pids.floor);
  const trips0 = await roundTrips();
  for (let i = 0; i < rounds; i++) {
    let start = process.hrtime.bigint();
    await service();
    serviceNs += process.hrtime.bigint() - start;
    start = process.hrtime.bigint();
    await floor();
    floorNs += process.hrtime.bigint() - start;
  }
  const cpu = treeCpuMs(pids.service) - cpu0;
  const floorCpu = treeCpuMs(pids.floor) - floorCpu0;
  const trips = (await roundTrips()) - trips0;
  const mibs = (ns: bigint) => (size * rounds) / MiB / (Number(ns) / 1e9);
  const row = {
    scenario: name,
    serviceMiBs: mibs(serviceNs),
    floorMiBs: mibs(floorNs),
    ratio: Number(floorNs) / Number(serviceNs),
    nodeCpuMsPerReq: cpu / rounds,
    floorCpuMsPerReq: floorCpu / rounds,
    roundTripsPerReq: trips / rounds,
  };
  log(
    `${name}: ${row.serviceMiBs.toFixed(0)} MiB/s, floor ${row.floorMiBs.toFixed(0)} MiB/s (${row.ratio.toFixed(2)}), node ${row.nodeCpuMsPerReq.toFixed(1)} ms/req (floor ${row.floorCpuMsPerReq.toFixed(1)}), ${row.roundTripsPerReq.toFixed(1)} round trips/req`,
  );
  return row;
}

/**
 * Starts a prober in a process of its own (so that the uploading client's event loop does
 * not delay it): it asks GET `url` one request at a time until told to stop (a line on its
 * stdin), then prints the latencies (ms).
 */
function startProber(url: string, auth: Record<string, string>): { stop: () => Promise<number[]> } {
  const script = `
    const http = require('http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const times = [];
    let running = true;
    process.stdin.once('data', () => (running = false));
    const once = () => new Promise((done) => {
      const start = process.hrtime.bigint();
      http.get(${JSON.stringify(url)}, { agent, headers: ${JSON.stringify(auth)} }, (res) => {
        res.resume();
        res.on('end', () => { times.push(Number(process.hrtime.bigint() - start) / 1e6); done(); });
      });
    });
    (async () => { while (running) await once(); process.stdout.write(JSON.stringify(times)); process.exit(0); })();`;
  const child = hasTaskset ? spawn('taskset', ['-c', '1', process.execPath, '-e', script]) : spawn(process.execPath, ['-e', script]);
  let out = '';
  child.stdout!.on('data', (data: Buffer) => (out += data.toString()));
  return {
    stop: () =>
      new Promise((done) => {
        child.once('exit', () => done(JSON.parse(out) as number[]));
        child.stdin!.write('stop\n');
      }),
  };
}

/** The median of `values`. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The 99th percentile of `times`. */
const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * 0.99))];

/** The `--files` mode of `npm run bench` (see the comment at the top). */
export async function files(args: string[]): Promise<void> {
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',').map((s) => s.trim()) : [...FILE_SCENARIOS];
  const unknown = only.filter((s) => !(FILE_SCENARIOS as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown file scenarios ${unknown.join(', ')}; known: ${FILE_SCENARIOS.join(', ')}`);
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is required');
  // The load on CPU 1, the server and the floor on CPU 0 (as the other scenarios run).
  if (hasTaskset) execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
  const dbName = `bench_files_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const work = mkdtempSync(join(tmpdir(), 'bench-files-'));
  let server: ChildProcess | undefined;
  let floor: Awaited<ReturnType<typeof floorServer>> | undefined;
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  try {
    const ds = await openDatabase(url.toString(), true);
    const ids = await loadFixture(ds, {
      users: [{ ref: 'owner', email: 'owner@bench.files', name: 'Owner' }],
      api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'ws',
          name: 'Bench files',
          slug: 'bench-files',
          owner: 'owner',
          lists: [{ ref: 'l', name: 'L' }],
          tasks: [{ ref: 't', list: 'l', title: 'Files' }],
        },
      ],
    });
    await ds.destroy();
    proxy = await countingProxy(url);
    const started = await startServer(
      proxy.url,
      1,
      {
        STORAGE_DIR: join(work, 'storage'),
        WEBHOOK_WORKER: 'false',
        ATTACHMENT_WORKER: 'false',
        LOG_LEVEL: 'warn',
        MIGRATIONS_RUN: 'false',
      },
      KEY,
    );
    server = started.child;
    const port = Number(new URL(started.base).port);
    const pid = server.pid!;
    mkdirSync(join(work, 'floor'));
    floor = await floorServer(join(work, 'floor'));
    const auth = { authorization: `Bearer ${KEY}` };
    const uploadPath = `/api/v1/tasks/${ids.t}/attachments`;
    const rows: FileRow[] = [];
    if (process.env.BENCH_PROFILE_SIGNAL) {
      // A profiling wrapper (BENCH_SERVER) starts profiling on the first SIGUSR2, writes the profile on the second.
      await send(
        port,
        'POST',
        uploadPath,
        {
          ...auth,
          ...(() => {
            const m = multipart(1024);
            return { 'content-type': m.type };
          })(),
        },
        multipart(1024).body,
      );
      server.kill('SIGUSR2');
    }
    log(`Server ${SERVER}, one process; the machine may be shared: read the ratios`);

    for (const size of [1 * MiB, 25 * MiB]) {
      const label = `${size / MiB}mib`;
      const { body, type } = multipart(size);
      const raw = Buffer.alloc(size, 0x61);
      const upload = async () => {
        const a = await send(port, 'POST', uploadPath, { ...auth, 'content-type': type }, body);
        if (a.status !== 201) throw new Error(`upload answered ${a.status} ${a.text}`);
        return JSON.parse(a.text) as { id: number };
      };
      if (only.includes(`upload-${label}`)) {
        rows.push(
          await sideBySide(
            `multipart upload ${size / MiB} MiB`,
            size,
            ROUNDS[size],
            { service: pid, floor: floor.pid },
            proxy.roundTrips,
            async () => void (await upload()),
            async () => {
              await send(floor!.port, 'PUT', '/', {}, raw);
            },
          ),
        );
      }
      if (only.includes(`upload-keyed-${label}`)) {
        let keys = 0;
        rows.push(
          await sideBySide(
            `keyed multipart upload ${size / MiB} MiB`,
            size,
            ROUNDS[size],
            { service: pid, floor: floor.pid },
            proxy.roundTrips,
            async () => {
              const a = await send(
                port,
                'POST',
                uploadPath,
                { ...auth, 'content-type': type, 'idempotency-key': `bench-${process.pid}-${label}-${keys++}` },
                body,
              );
              if (a.status !== 201) throw new Error(`keyed upload answered ${a.status} ${a.text}`);
            },
            async () => {
              await send(floor!.port, 'PUT', '/', {}, raw);
            },
          ),
        );
      }
      if (only.includes(`download-${label}`)) {
        const { id } = await upload();
        writeFileSync(join(work, 'floor', `out-${size}`), raw);
        // Where a download's time goes: each run's 302 and link GET, and the floor's GET (ms).
        const times = { redirect: [] as number[], link: [] as number[], floor: [] as number[] };
        const timed = async <T>(into: number[], run: () => Promise<T>): Promise<T> => {
          const start = process.hrtime.bigint();
          const result = await run();
          into.push(Number(process.hrtime.bigint() - start) / 1e6);
          return result;
        };
        const row = await sideBySide(
          `download via 302 ${size / MiB} MiB`,
          size,
          ROUNDS[size],
          { service: pid, floor: floor.pid },
          proxy.roundTrips,
          async () => {
            const redirect = await timed(times.redirect, () => send(port, 'GET', `/api/v1/attachments/${id}/download`, auth));
            const a = await timed(times.link, () => send(port, 'GET', new URL(redirect.headers.location as string).pathname));
            if (a.bytes !== size) throw new Error(`download gave ${a.bytes} bytes`);
          },
          async () => {
            const a = await timed(times.floor, () => send(floor!.port, 'GET', `/out-${size}`));
            if (a.bytes !== size) throw new Error('floor download short');
          },
        );
        // The warm-up run left out.
        row.medianMs = { redirect: median(times.redirect.slice(1)), link: median(times.link.slice(1)), floor: median(times.floor.slice(1)) };
        log(`  median ms: 302 ${row.medianMs.redirect.toFixed(2)}, link GET ${row.medianMs.link.toFixed(2)}, floor GET ${row.medianMs.floor.toFixed(2)}`);
        rows.push(row);
      }
    }

    let concurrent: { rssBeforeMiB: number; rssPeakMiB: number; growthPerUploadMiB: number; idleP99Ms: number; busyP99Ms: number } | undefined;
    if (only.includes('uploads-8x25mib')) {
      const taskPath = `/api/v1/tasks/${ids.t}`;
      const { body, type } = multipart(25 * MiB);
      const eight = () => Promise.all(Array.from({ length: 8 }, () => send(port, 'POST', uploadPath, { ...auth, 'content-type': type }, body)));
      await eight(); // warm-up: buffers and pools at their working size
      const taskUrl = `http://127.0.0.1:${port}${taskPath}`;
      const idle = startProber(taskUrl, auth);
      await new Promise((done) => setTimeout(done, 3000));
      const idleTimes = await idle.stop();
      const before = rssMiB(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 10);
      const busy = startProber(taskUrl, auth);
      // Batches of 8 in a row (BENCH_BATCHES, default 3): a busy window long enough for get task samples.
      const answers: Answer[] = [];
      for (let batch = 0; batch < Number(process.env.BENCH_BATCHES ?? 3); batch++) answers.push(...(await eight()));
      const times = await busy.stop();
      clearInterval(sampler);
      if (answers.some((a) => a.status !== 201)) throw new Error('a concurrent upload failed');
      const idleP99 = p99(idleTimes);
      const busyP99 = p99(times);
      concurrent = { rssBeforeMiB: before, rssPeakMiB: peak, growthPerUploadMiB: (peak - before) / 8, idleP99Ms: idleP99, busyP99Ms: busyP99 };
      log(
        `8 x 25 MiB at once: RSS +${concurrent.growthPerUploadMiB.toFixed(2)} MiB per upload; get task p99 ${idleP99.toFixed(1)} ms idle (${idleTimes.length} samples), ${busyP99.toFixed(1)} ms busy (${times.length} samples)`,
      );
    }

    if (rows.length) {
      console.log('| scenario | service MiB/s | floor MiB/s | ratio | node cpu ms/req | floor cpu ms/req | round trips/req |');
      console.log('|---|---|---|---|---|---|---|');
      for (const r of rows) {
        console.log(
          `| ${r.scenario} | ${r.serviceMiBs.toFixed(0)} | ${r.floorMiBs.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.nodeCpuMsPerReq.toFixed(1)} | ${r.floorCpuMsPerReq.toFixed(1)} | ${r.roundTripsPerReq.toFixed(1)} |`,
        );
      }
    }
    if (concurrent) {
      console.log(
        `\nRSS ${concurrent.rssBeforeMiB.toFixed(1)} MiB before, ${concurrent.rssPeakMiB.toFixed(1)} MiB at the peak of 8 concurrent 25 MiB uploads: ${concurrent.growthPerUploadMiB.toFixed(2)} MiB per upload`,
      );
      console.log(
        `get task p99: ${concurrent.idleP99Ms.toFixed(2)} ms idle, ${concurrent.busyP99Ms.toFixed(2)} ms during the uploads (${(concurrent.busyP99Ms / concurrent.idleP99Ms).toFixed(2)}x)`,
      );
    }
    const results = join(__dirname, 'results');
    mkdirSync(results, { recursive: true });
    const label = process.env.BENCH_LABEL ?? 'files';
    writeFileSync(
      join(results, `${new Date().toISOString().replace(/[:.]/g, '-')}-${label}.json`),
      JSON.stringify({ label, server: SERVER, at: new Date().toISOString(), rows, concurrent }, null, 2) + '\n',
    );
  } finally {
    await floor?.close();
    if (server && process.env.BENCH_PROFILE_SIGNAL) {
      server.kill('SIGUSR2');
      await new Promise((done) => setTimeout(done, 2000));
    }
    if (server) await stopServer(server);
    proxy?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(work, { recursive: true, force: true });
  }
}
