// Preloaded into the built server by the express-prototypes guard test (NODE_OPTIONS=--import): as each
// response ends, asks V8 whether it and its request still have fast properties, and prints the answer.
// An object that drops to dictionary mode still works, only every property access on it is slower, so
// nothing else would notice.
import { ServerResponse } from "node:http";
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--allow-natives-syntax");
// Compiled after the flag is set, so V8 accepts its intrinsic call.
const hasFastProperties = new Function("object", "return %HasFastProperties(object)");

const end = /** @type {(...args: unknown[]) => ServerResponse} */ (ServerResponse.prototype.end);
ServerResponse.prototype.end = function reportingEnd(/** @type {unknown[]} */ ...args) {
  process.stderr.write(
    `fast properties: request ${hasFastProperties(this.req)}, response ${hasFastProperties(this)}\n`,
  );
  return end.apply(this, args);
};
