import { connect, Socket } from 'net';

/** An HTTP answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (or the answer was complete). */
  ms: number;
}

/** Parses the first response in `raw` (no chunked bodies: the answers tested carry Content-Length). */
function parse(raw: string, ms: number): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end).split('\r\n');
  const status = Number(head[0].split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? raw.length);
  return { status, headers, body: raw.slice(end + 4, end + 4 + length), ms };
}

/**
 * Opens a TCP connection to 127.0.0.1:`port`, writes `chunks` (waiting `gapMs`
 * between them, as long as the socket is open) and resolves with the first answer
 * once the server closes the connection or a whole answer arrived.
 */
export function rawRequest(port: number, chunks: Array<string | Buffer>, gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      const text = received.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const answer = parse(text, Date.now() - started);
      if (answer.body.length < Number(answer.headers['content-length'] ?? 0)) return;
      done = true;
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      finish();
      if (!done) reject(new Error(`connection closed without an answer after ${Date.now() - started} ms: ${received.toString('utf8')}`));
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed || done) return;
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}
