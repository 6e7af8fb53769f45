import { connect, createServer, type Socket } from "node:net";

/** What the overload report says about how fast a Node server can take new connections off the kernel's queue. */
export interface AcceptProbe {
  libuv: string;
  connections: number;
  /** Event-loop turns in which the server accepted at least one connection, and the most it accepted in one. */
  turnsAccepting: number;
  mostInOneTurn: number;
}

/**
 * Opens `count` connections at once to a listening node:net server in this process and counts, per event-loop
 * turn (a setImmediate chain marks each), how many it accepted. libuv accepts one connection per turn since 1.45
 * (libuv/libuv#3696), so a server whose turns are long under overload takes few new connections a second, however
 * many wait in the kernel's accept queue.
 */
export async function acceptProbe(count = 1_000): Promise<AcceptProbe> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: count }, resolve));
  const { port } = server.address() as { port: number };
  const perTurn: number[] = [];
  let seen = 0;
  let counting = true;
  const turn = () => {
    if (accepted.length > seen) {
      perTurn.push(accepted.length - seen);
      seen = accepted.length;
    }
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const clients = Array.from({ length: count }, () =>
    connect({ port, host: "127.0.0.1" }).on("error", () => undefined),
  );
  const deadline = Date.now() + 10_000;
  while (accepted.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  counting = false;
  for (const socket of [...clients, ...accepted]) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  return {
    libuv: process.versions.uv,
    connections: accepted.length,
    turnsAccepting: perTurn.length,
    mostInOneTurn: Math.max(0, ...perTurn),
  };
}
