import { resolve } from "node:path";
import { buildServerImage } from "./build-image.js";
import { findEngine } from "./engine.js";
import { checkImage } from "./image-check.js";
import { writeSbom } from "./sbom.js";

// Paths on the command line are relative to where the root script was run (pnpm sets INIT_CWD).
const from = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

async function main(command: string | undefined, args: string[]): Promise<number> {
  switch (command) {
    case "build": {
      const engine = findEngine();
      if (engine === undefined) {
        console.error("image:build needs podman or docker; neither is installed");
        return 1;
      }
      await buildServerImage(engine);
      return 0;
    }
    case "test":
      return checkImage();
    case "sbom": {
      const [folder, output] = args;
      if (folder === undefined) {
        console.error("usage: pnpm sbom <deployed folder> [output file, default <folder>/sbom.cdx.json]");
        return 1;
      }
      writeSbom(from(folder), from(output ?? `${folder}/sbom.cdx.json`));
      return 0;
    }
    default:
      console.error("usage: cli.js build | test | sbom <folder> [output]");
      return 1;
  }
}

main(process.argv[2], process.argv.slice(3)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
