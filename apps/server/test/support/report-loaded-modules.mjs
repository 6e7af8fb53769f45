// Preloaded into the built server by the tracing test (NODE_OPTIONS=--import): as the main thread exits, prints
// the URL of every module it resolved, imported or required, one per line. NODE_DEBUG=esm,module listed them
// too, but it prints the whole module map at each load: with SDK 3's many small ES modules that grew to tens of
// megabytes, and a start of more than 15 s on a busy machine.
import { registerHooks } from "node:module";

const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
process.on("exit", () => {
  process.stderr.write(`${[...resolved].map((url) => `loaded ${url}`).join("\n")}\n`);
});
