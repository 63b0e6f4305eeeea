import type { IncomingMessage, Server } from 'http';

/**
 * `Expect: 100-continue` answered by what the app does, not at once: Node sends `100 Continue`
 * to every such request unless the server listens for `checkContinue`, which this does. The
 * request then runs as any other, and `100 Continue` goes out when the app first reads its body
 * (the upload route reads it after D3 steps 1-6 and a declared length within the limit, D47; a
 * keyed upload after step 3, as D35 must know its bytes to recognise a replay).
 * An answer given before any read goes out without it: the client never sends the body, and
 * Node closes the connection after that answer (`Connection: close`).
 */
export function continueOnFirstRead(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response) => {
    const read = request._read;
    request._read = function (this: IncomingMessage, size: number) {
      request._read = read;
      if (!response.headersSent) response.writeContinue();
      return read.call(this, size);
    };
    server.emit('request', request, response);
  });
}
