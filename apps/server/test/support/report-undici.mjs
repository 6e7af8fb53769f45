// Preloaded into the built server by the node-http guard test (NODE_OPTIONS=--import): as each thread of the
// process exits, prints whether Node loaded undici (its fetch and WebSocket) in it. Nothing else would notice
// it being loaded: it only costs memory.

// `moduleLoadList`: the built-in modules this thread has loaded, which Node keeps on `process` without declaring it.
const node = /** @type {NodeJS.Process & { moduleLoadList: string[] }} */ (process);
process.on("exit", () => {
  process.stderr.write(`undici loaded: ${node.moduleLoadList.includes("NativeModule internal/deps/undici/undici")}\n`);
});
