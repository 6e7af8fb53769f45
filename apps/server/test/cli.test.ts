import jwt from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli-process.js";
import { generateSigningKey } from "./support/tokens.js";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";

describe("plant-store (dist/cli/main.js)", () => {
  it("--help lists every command and exits 0", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    for (const name of ["backup", "restore", "copy-store", "issue-token"])
      expect(stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(stdout).toMatch(
      /Exit 0 on success, 1 with one line\non stderr on an error, 2 from copy-store when the copy ran but the two stores differ/,
    );
  });

  it("<command> --help prints its usage and options, and needs no configuration", async () => {
    const { code, stdout } = await runCli(["backup", "--help"], { PORT: "not-a-port" });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: plant-store backup <file> \[--force\]$/m);
    expect(stdout).toMatch(/--every <minutes>/);
  });

  it("an unknown command or option is one line on stderr and exit 1", async () => {
    expect(await runCli(["nope"])).toEqual({
      code: 1,
      stdout: "",
      stderr: 'plant-store: unknown command "nope": run plant-store --help for the list\n',
    });
    expect(await runCli(["restore", "--bogus"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "plant-store restore: Unknown option '--bogus' (plant-store restore --help lists the options)\n",
    });
  });

  it("a bad environment is one line on stderr and exit 1", async () => {
    const { code, stderr } = await runCli(["restore", "x.db"], { PORT: "not-a-port" });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^plant-store restore: invalid configuration: PORT: [^\n]+\n$/);
  });
});

describe("plant-store issue-token (pnpm run token)", () => {
  it("grants the scopes in JWT_REQUIRED_SCOPE by default: the token alone on stdout, what it grants on stderr", async () => {
    const env = { JWT_SECRET: SECRET, JWT_REQUIRED_SCOPE: "plants:write garden", NODE_ENV: "production" };
    const { code, stdout, stderr } = await runCli(["issue-token"], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = jwt.verify(stdout.trim(), SECRET, { algorithms: ["HS256"] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: "plant-store-cli", scope: "plants:write garden" });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(stderr).toBe('token for sub "plant-store-cli", scope "plants:write garden", valid 3600 s\n');
  });

  it("takes a subject, --scope and --expires-in", async () => {
    const { code, stdout, stderr } = await runCli(["issue-token", "alice", "--scope", "read", "--expires-in", "600"], {
      JWT_SECRET: SECRET,
    });
    expect(code).toBe(0);
    const claims = jwt.verify(stdout.trim(), SECRET, { algorithms: ["HS256"] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: "alice", scope: "read" });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(stderr).toBe('token for sub "alice", scope "read", valid 600 s\n');
  });

  it("--scope '' grants no scope", async () => {
    const { stdout, stderr } = await runCli(["issue-token", "--scope", ""], {
      JWT_SECRET: SECRET,
      JWT_REQUIRED_SCOPE: "plants:write",
    });
    expect(jwt.verify(stdout.trim(), SECRET)).not.toHaveProperty("scope");
    expect(stderr).toMatch(/no scope/);
  });

  it("without JWT_SECRET, with a public key instead, or with a bad --expires-in, prints one line and exits 1", async () => {
    expect(await runCli(["issue-token"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "plant-store issue-token: JWT_SECRET is not set: there is no secret to sign a token with\n",
    });
    // A public key or a JWKS: the private key is the identity provider's.
    const publicKey = generateSigningKey("rsa").pem.replaceAll("\n", "\\n");
    for (const [variable, value] of [
      ["JWT_PUBLIC_KEY", publicKey],
      ["JWT_JWKS_URI", "https://idp.example.com/.well-known/jwks.json"],
    ] as const) {
      expect(await runCli(["issue-token"], { [variable]: value, NODE_ENV: "production" })).toEqual({
        code: 1,
        stdout: "",
        stderr:
          `plant-store issue-token: ${variable} is set: this server accepts tokens signed by your identity provider, which holds the private key; ` +
          "get them from it (a test token: docs/identity-providers.md#a-test-token-for-a-public-key)\n",
      });
    }
    expect(await runCli(["issue-token", "--expires-in", "soon"], { JWT_SECRET: SECRET })).toEqual({
      code: 1,
      stdout: "",
      stderr: 'plant-store issue-token: --expires-in must be a positive whole number, not "soon"\n',
    });
  });
});
