import { resolve } from "node:path";
import { buildServerImage } from "./build-image.js";
import { findEngine } from "./engine.js";
import { checkImage } from "./image-check.js";
import { resolveImage } from "./image-reference.js";
import { pushImage } from "./push-image.js";
import { serverPackage } from "./repo.js";
import { writeSbom } from "./sbom.js";

// Paths on the command line are relative to where the root script was run (pnpm sets INIT_CWD).
const from = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

async function main(command: string | undefined, args: string[]): Promise<number> {
  switch (command) {
    case "build":
    case "push": {
      const engine = findEngine();
      if (engine === undefined) {
        console.error(`image:${command} needs podman or docker; neither is installed`);
        return 1;
      }
      if (command === "push" && !process.env.IMAGE) {
        console.error("image:push needs IMAGE=<registry>/<repository>[:tag], as image:build was given it");
        return 1;
      }
      // IMAGE=registry.example.com/plant-store-server[:tag]; without a tag, the server's version is the tag.
      const image = resolveImage(process.env.IMAGE, serverPackage().version);
      if (command === "build") {
        await buildServerImage(engine, { image });
        console.log(`image: built ${image}`);
      } else {
        const pushed = await pushImage(engine, image);
        console.log(`image: pushed ${image} as ${pushed.digest}`);
        console.log(pushed.pinned);
      }
      return 0;
    }
    case "test":
      return checkImage();
    case "sbom": {
      const [folder, output] = args;
      if (folder === undefined) {
        console.error("usage: pnpm run sbom <deployed folder> [output file, default <folder>/sbom.cdx.json]");
        return 1;
      }
      writeSbom(from(folder), from(output ?? `${folder}/sbom.cdx.json`));
      return 0;
    }
    default:
      console.error(
        "usage: cli.js build | push | test | sbom <folder> [output]   (IMAGE=<reference> for build and push)",
      );
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
