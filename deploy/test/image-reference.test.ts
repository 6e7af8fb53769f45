import { describe, expect, it } from "vitest";
import { resolveImage, isLoopbackRegistry, parseImageReference } from "../src/image-reference.js";

describe("the image reference image:build and image:push act on", () => {
  it("is plant-store-server:local when IMAGE is unset or empty", () => {
    expect(resolveImage(undefined, "1.4.0")).toBe("plant-store-server:local");
    expect(resolveImage("", "1.4.0")).toBe("plant-store-server:local");
  });

  it("is IMAGE as given when it carries a tag", () => {
    expect(resolveImage("registry.example.com/plant-store-server:1.4.0", "0.0.0")).toBe(
      "registry.example.com/plant-store-server:1.4.0",
    );
    expect(resolveImage("registry.example.com:5000/team/plant-store-server:rc-2", "0.0.0")).toBe(
      "registry.example.com:5000/team/plant-store-server:rc-2",
    );
  });

  it("is tagged with the server's version when IMAGE names a repository alone, a registry port not taken for a tag", () => {
    expect(resolveImage("registry.example.com/plant-store-server", "1.4.0")).toBe(
      "registry.example.com/plant-store-server:1.4.0",
    );
    expect(resolveImage("127.0.0.1:5000/plant-store-server", "1.4.0")).toBe("127.0.0.1:5000/plant-store-server:1.4.0");
    expect(resolveImage("localhost:5000/plant-store-server", "2.0.0-rc.1+build.7")).toBe(
      "localhost:5000/plant-store-server:2.0.0-rc.1_build.7",
    );
  });

  it("refuses a digest, and a reference outside the grammar, saying what is wrong", () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    expect(() => resolveImage(`registry.example.com/plant-store-server@${digest}`, "1.4.0")).toThrow(/names a digest/);
    expect(() => resolveImage("registry.example.com/Plant-Store", "1.4.0")).toThrow(
      /"Plant-Store" is not a repository name/,
    );
    expect(() => resolveImage("registry.example.com/plant-store-server:-bad", "1.4.0")).toThrow(/"-bad" is not a tag/);
    expect(() => resolveImage("registry.example.com/plant-store-server:1.4.0@sha256:abc", "1.4.0")).toThrow(
      /is not a digest/,
    );
    expect(() => resolveImage("bad_host.example.com/plant-store-server", "1.4.0")).toThrow(/is not a registry host/);
  });
});

describe("an image reference taken apart", () => {
  it("names the registry only when the first component has a dot or a port, or is localhost", () => {
    expect(parseImageReference("registry.example.com/plant-store-server:1.4.0")).toEqual({
      repository: "registry.example.com/plant-store-server",
      domain: "registry.example.com",
      tag: "1.4.0",
      digest: undefined,
    });
    expect(parseImageReference("localhost/plant-store-server").domain).toBe("localhost");
    expect(parseImageReference("team/plant-store-server").domain).toBeUndefined();
    expect(parseImageReference("plant-store-server:local")).toMatchObject({
      repository: "plant-store-server",
      tag: "local",
    });
    const digest = `sha256:${"0f".repeat(32)}`;
    expect(parseImageReference(`127.0.0.1:5000/plant-store-server@${digest}`)).toMatchObject({
      domain: "127.0.0.1:5000",
      tag: undefined,
      digest,
    });
  });

  it("treats loopback registries, and only those, as plain HTTP ones", () => {
    expect(["127.0.0.1:5000", "localhost:5000", "localhost", "[::1]:5000"].map(isLoopbackRegistry)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["registry.example.com", "10.0.0.1:5000", "127.example.com", undefined].map(isLoopbackRegistry)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
