/**
 * A TCP proxy in front of PostgreSQL for tests of a database that goes away while the server runs:
 * `cut()` drops every connection through it and refuses new ones (as a stopped or unreachable
 * PostgreSQL does), `restore()` lets connections through again. Only the test's own server goes
 * through it, so no other connection to the shared PostgreSQL is touched.
 */
import net from 'node:net';

export interface TcpProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function proxyDatabase(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair = [client, upstream];
    const drop = () => pair.forEach((socket) => {
      socket.destroy();
      sockets.delete(socket);
    });
    for (const socket of pair) {
      sockets.add(socket);
      socket.on('error', drop).on('close', drop);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  const cut = () => {
    open = false;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    url: proxied.toString(),
    cut,
    restore() {
      open = true;
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
