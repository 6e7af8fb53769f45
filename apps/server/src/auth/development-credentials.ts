import { randomBytes } from "node:crypto";
import { signToken } from "./sign-token.js";

/** A random HS256 secret for one development run, when no JWT_SECRET was configured. */
export function generateDevelopmentSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** What a developer needs to call a server that made up its own secret: a token and a curl line. */
export function developmentBanner(options: {
  secret: string;
  baseUrl: string;
  issuer?: string | undefined;
  audience?: string | undefined;
  /** JWT_REQUIRED_SCOPE: granted, so the printed token is not refused with 403. */
  scopes?: string[] | undefined;
}): string {
  const { scopes = [], ...signing } = options;
  const token = signToken({
    ...signing,
    expiresInSeconds: 24 * 3600,
    ...(scopes.length > 0 && { scope: scopes.join(" ") }),
  });
  return [
    "",
    "No JWT_SECRET is set: this development run generated its own secret.",
    `A bearer token valid for 24 hours:\n\n  ${token}\n`,
    "Try it:",
    `  curl -s -X POST ${options.baseUrl}/plants \\`,
    `    -H "Authorization: Bearer ${token}" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"id": 1, "name": "Monstera", "tag": "tropical"}'`,
    "",
    "Set JWT_SECRET (and NODE_ENV=production) to run with your own tokens.",
    "",
  ].join("\n");
}
