import { type ErrorBody, ErrorCode } from "@plant-store/contract";
import { BEARER_SCHEME, BEARER_TOKEN, unauthorizedChallenge } from "@plant-store/contract/wire";

/** A refused request's 401: its Error body and its RFC 6750 challenge, as the server sends them. */
export interface Unauthorized {
  body: ErrorBody<401>;
  challenge: string;
}

/** Decides whether a bearer token is accepted; the fake accepts every well-formed token without one. */
export type VerifyToken = (token: string) => boolean | Promise<boolean>;

/** The server's 401: no error attribute for a missing token, error="invalid_token" with a description otherwise. */
export function unauthorized(code: "MissingToken" | "InvalidToken", message: string): Unauthorized {
  return { body: { error: ErrorCode[code], message }, challenge: unauthorizedChallenge(ErrorCode[code], message) };
}

/** The 401 for this Authorization header, or undefined when its bearer token is accepted. */
export async function checkBearer(
  header: string | undefined,
  verifyToken: VerifyToken | undefined,
): Promise<Unauthorized | undefined> {
  if (header === undefined || !BEARER_SCHEME.test(header)) {
    return unauthorized("MissingToken", "a bearer token is required in the Authorization header");
  }
  const token = BEARER_TOKEN.exec(header)?.[1];
  if (token === undefined) return unauthorized("InvalidToken", "token is malformed");
  if (verifyToken && !(await verifyToken(token)))
    return unauthorized("InvalidToken", "token was refused by verifyToken");
  return undefined;
}
