import { createSecretKey } from "node:crypto";
import jwt from "jsonwebtoken";

export interface SignTokenOptions {
  secret: string;
  subject?: string;
  issuer?: string | undefined;
  audience?: string | undefined;
  expiresInSeconds?: number;
  /** The `scope` claim: space-separated scopes (the server's JWT_REQUIRED_SCOPE checks them). */
  scope?: string;
}

/** Signs an HS256 bearer token the server accepts (for development, curl and tests). */
export function signToken(options: SignTokenOptions): string {
  return jwt.sign(
    options.scope === undefined ? {} : { scope: options.scope },
    createSecretKey(Buffer.from(options.secret, "utf8")),
    {
      algorithm: "HS256",
      subject: options.subject ?? "plant-store-dev",
      expiresIn: options.expiresInSeconds ?? 3600,
      ...(options.issuer !== undefined && { issuer: options.issuer }),
      ...(options.audience !== undefined && { audience: options.audience }),
    },
  );
}
