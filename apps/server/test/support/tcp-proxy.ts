import net from "node:net";
import { tearDownWith } from "@plant-store/test-support/teardown";

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, which a test can cut, freeze and restore. Cut
 * resets every open connection; freeze leaves them open but stops forwarding (a silent partition);
 * both black-hole new connections (accepted, never answered). These are the ways a database
 * vanishes from a client's point of view. Closed when the test (or file) ends.
 */
export async function startTcpProxy(target: { host: string; port: number }, options: { port?: number } = {}) {
  let up = true;
  const open = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  const held = new Set<net.Socket>();
  const track = (socket: net.Socket, set: Set<net.Socket>) => {
    set.add(socket);
    socket.on("close", () => set.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  const server = net.createServer((client) => {
    if (!up) {
      track(client, held);
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(client, open);
    track(upstream, open);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on("close", () => pairs.delete(pair));
  });
  // A given port: a client already pointed at it was refused until now, as by a database not yet started.
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;

  const cut = () => {
    up = false;
    for (const socket of open) socket.resetAndDestroy();
  };
  const close = () =>
    new Promise<void>((resolve) => {
      cut();
      for (const socket of held) socket.destroy();
      server.close(() => resolve());
    });
  tearDownWith(close);
  return {
    port,
    cut,
    freeze() {
      up = false;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      up = true;
      for (const socket of held) socket.destroy();
    },
    close,
  };
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;
