import { signToken } from "../auth/sign-token.js";
import { type Command, positiveNumber } from "./command.js";
import { CommandError } from "../operator-errors.js";

const DEFAULT_SUBJECT = "plant-store-cli";
const DEFAULT_EXPIRES_IN_SECONDS = 3600;

/** `plant-store issue-token`: a development token for the configured JWT_SECRET, with the scopes the server requires. */
export const issueToken: Command = {
  name: "issue-token",
  usage: ["[subject] [--scope <scopes>] [--expires-in <seconds>]"],
  description: [
    "Prints an HS256 token on stdout, and what it grants on stderr, so TOKEN=$(plant-store issue-token) captures",
    "the token alone. JWT_ISSUER and JWT_AUDIENCE, when set, go into iss and aud. The subject (sub, what the rate",
    `limit counts by) defaults to ${DEFAULT_SUBJECT}. A server with a public key or a JWKS checks tokens its`,
    "identity provider signs, which this command cannot make (docs/identity-providers.md#a-test-token-for-a-public-key",
    "signs a test one with a PEM key of your own).",
  ].join("\n"),
  options: {
    scope: {
      type: "string",
      value: "scopes",
      description: "space-separated scopes to grant (default: those in JWT_REQUIRED_SCOPE; '' for none)",
    },
    "expires-in": {
      type: "string",
      value: "seconds",
      description: `how long the token is valid (default: ${DEFAULT_EXPIRES_IN_SECONDS})`,
    },
  },
  async run(args, config) {
    if (config.JWT_SECRET === undefined) {
      const keySource = (["JWT_PUBLIC_KEY", "JWT_PUBLIC_KEY_FILE", "JWT_JWKS_URI"] as const).find(
        (name) => config[name] !== undefined,
      );
      if (keySource !== undefined) {
        throw new CommandError(
          `${keySource} is set: this server accepts tokens signed by your identity provider, which holds the private key; get them from it (a test token: docs/identity-providers.md#a-test-token-for-a-public-key)`,
          { setting: keySource },
        );
      }
      throw new CommandError("JWT_SECRET is not set: there is no secret to sign a token with", {
        setting: "JWT_SECRET",
      });
    }
    if (args.positionals.length > 1) throw new CommandError(`one subject only, got ${args.positionals.length}`);
    const subject = args.positionals[0] ?? DEFAULT_SUBJECT;
    const expiresInSeconds = positiveNumber(args, "expires-in", DEFAULT_EXPIRES_IN_SECONDS, { integer: true });
    const scope =
      typeof args.values.scope === "string"
        ? args.values.scope.split(/\s+/).filter((s) => s !== "")
        : (config.JWT_REQUIRED_SCOPE ?? []);
    const token = signToken({
      secret: config.JWT_SECRET,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      subject,
      expiresInSeconds,
      ...(scope.length > 0 && { scope: scope.join(" ") }),
    });
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `token for sub ${JSON.stringify(subject)}, ${scope.length > 0 ? `scope ${JSON.stringify(scope.join(" "))}` : "no scope"}, valid ${expiresInSeconds} s\n`,
    );
    return 0;
  },
};
