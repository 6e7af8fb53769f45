// Preloaded into a server process by a test (NODE_OPTIONS=--import): prints the client port of every
// connection the server accepts, so the test can tell a reset on an accepted connection from one the
// kernel sent for a connection still queued on the listening socket when it closed.
import { subscribe } from "node:diagnostics_channel";

subscribe("net.server.socket", (message) => {
  const { socket } = /** @type {{ socket: import("node:net").Socket }} */ (message);
  process.stderr.write(`accepted connection from port ${socket.remotePort}\n`);
});
