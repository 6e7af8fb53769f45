// pnpm loads this file before it installs anything. better-sqlite3 compiles its addon with node-gyp where no
// prebuilt binary can be downloaded, and node-gyp then downloads Node's headers from nodejs.org unless
// npm_config_nodedir names a folder holding them. Debian's node, the official tarballs and the npm registry's
// node-<os>-<arch> packages ship those headers beside the binary, at <prefix>/include/node: point node-gyp
// there so an offline install needs no setting; a nodedir the user set (npm_config_nodedir or .npmrc) is left
// alone. pnpm records this file's checksum in pnpm-lock.yaml: after editing it, run pnpm install.
const { readFileSync } = require("node:fs");
const { dirname, join } = require("node:path");

/** The version in <prefix>/include/node/node_version.h, or undefined when there are no headers there. */
function headersVersion(prefix) {
  try {
    const header = readFileSync(join(prefix, "include", "node", "node_version.h"), "utf8");
    const part = (name) => new RegExp(`#define NODE_${name}_VERSION (\\d+)`).exec(header)?.[1];
    return `v${part("MAJOR")}.${part("MINOR")}.${part("PATCH")}`;
  } catch {
    return undefined;
  }
}

const prefix = dirname(dirname(process.execPath));

module.exports = {
  hooks: {
    // pnpm hands its config to lifecycle scripts as npm_config_* (replacing the environment's), so the
    // setting goes into that config. The same version check node-gyp makes for its own prefix lookup:
    // headers of another version would build an addon the running Node refuses to load.
    updateConfig(config) {
      if (!config.rawConfig.nodedir && headersVersion(prefix) === process.version) {
        config.rawConfig.nodedir = prefix;
      }
      return config;
    },
  },
};
