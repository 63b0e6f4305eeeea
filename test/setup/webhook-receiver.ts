import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

/** A request the receiver got. */
export interface Received {
  /** The request's path and query (`/hook/hook0`). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer this status, or never answer (`hang`). */
export type Answer = number | 'hang';

/**
 * A webhook receiver on 127.0.0.1 (a real HTTP server on loopback), recording
 * every request. `answer` decides each response from the requests so far
 * (default 200).
 */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answer: (request: Received, index: number) => Answer | Promise<Answer>;
  /** Resolves once `predicate` holds for the requests received, polling; rejects after `ms`. */
  waitFor(predicate: (received: Received[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver (on `port` when given: a restarted receiver keeps its URL). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => 200,
    async waitFor(predicate, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${ms} ms; got ${receiver.received.length} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = receiver.received.push(request) - 1;
      const answer = await receiver.answer(request, index);
      if (answer === 'hang') return void hanging.add(res);
      const location = answer >= 300 && answer < 400 ? { location: `${receiver.url}/moved` } : {};
      res.writeHead(answer, { 'content-type': 'text/plain', ...location }).end('ok');
    });
  });
  await new Promise<void>((ready) => server.listen(port, '127.0.0.1', ready));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}
