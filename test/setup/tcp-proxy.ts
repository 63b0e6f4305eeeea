import { AddressInfo, connect, createServer, Server, Socket } from 'net';

/** How a cut proxy treats connections: `refuse` resets them at once; `blackhole` keeps them open and silent. */
export type CutMode = 'refuse' | 'blackhole';

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (issue 8 outage tests): the
 * test cuts it (every connection reset, or every connection silent, the way
 * an unreachable host behaves) and restores it.
 */
export class TcpProxy {
  private mode: CutMode | 'open' = 'open';
  private readonly pairs = new Set<[Socket, Socket | null]>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Starts a proxy to `host:port` on a free local port. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, { host, port });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return proxy;
  }

  /** The local port clients connect to. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` (a postgres:// URL of the target) going through this proxy. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /**
   * Cuts the proxy. `refuse`: open connections are reset and new ones reset on
   * accept. `blackhole`: open connections stop carrying data both ways, new ones
   * are accepted and never answered.
   */
  cut(mode: CutMode): void {
    this.mode = mode;
    for (const pair of this.pairs) {
      const [client, upstream] = pair;
      if (mode === 'refuse') {
        client.resetAndDestroy();
        upstream?.destroy();
        this.pairs.delete(pair);
      } else {
        client.removeAllListeners('data');
        upstream?.removeAllListeners('data');
      }
    }
  }

  /**
   * Ends a cut: new connections are carried again. Connections left silent by a
   * blackhole are reset (as by a peer that rebooted), or with `staleStaySilent`
   * stay silent for good (as behind a firewall that forgot them).
   */
  restore(staleStaySilent = false): void {
    this.mode = 'open';
    if (staleStaySilent) return;
    this.dropAll();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    this.mode = 'open';
    this.dropAll();
    await new Promise((done) => this.server.close(done));
  }

  private dropAll(): void {
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream?.destroy();
    }
    this.pairs.clear();
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'blackhole') {
      const pair: [Socket, Socket | null] = [client, null];
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair: [Socket, Socket | null] = [client, upstream];
    this.pairs.add(pair);
    upstream.on('error', () => client.destroy());
    client.on('data', (data) => upstream.write(data));
    upstream.on('data', (data) => client.write(data));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('close', drop);
    upstream.on('close', drop);
  }
}
