import { signToken } from "../auth/sign-token.js";
import { loadConfig } from "../config.js";

// Prints a bearer token for the configured JWT_SECRET (and JWT_ISSUER/JWT_AUDIENCE).
// Usage: JWT_SECRET=... node dist/cli/issue-token.js [subject] [expires-in-seconds]
const config = loadConfig();
if (config.JWT_SECRET === undefined) {
  process.stderr.write("JWT_SECRET is not set: there is no secret to sign a token with\n");
  process.exit(1);
}
const [subject, expiresIn] = process.argv.slice(2);
process.stdout.write(
  `${signToken({
    secret: config.JWT_SECRET,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    subject: subject ?? "plant-store-cli",
    expiresInSeconds: expiresIn === undefined ? 3600 : Number(expiresIn),
  })}\n`,
);
