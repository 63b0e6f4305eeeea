import type { IncomingMessage, ServerResponse } from 'http';
import type { Socket } from 'net';

/** How long a closing connection keeps discarding the client's bytes after the answer (ms). */
const LINGER_MS = 500;
/** How many of them it discards at most. */
const LINGER_BYTES = 4 * 1024 * 1024;

/**
 * Makes the answer to `request` end its connection without reading the rest of a refused body
 * (a 413 for a body of gigabytes): the answer says `Connection: close`, and once it is sent the
 * socket is half-closed (FIN) and given up after at most LINGER_MS or LINGER_BYTES more of the
 * client's bytes, discarded. The short linger is a lingering close (as web servers do): closing
 * a socket with unread bytes resets it at once, and a reset can overtake the answer, so the
 * client would never see the 413.
 */
export function closeAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close');
  const socket = response.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket) return;
  // Node's HTTP server calls destroySoon once a Connection: close answer is sent.
  socket.destroySoon = () => {
    socket.end();
    let discarded = 0;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    request.removeAllListeners('data');
    request.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) socket.destroy();
    });
    request.resume();
  };
}
