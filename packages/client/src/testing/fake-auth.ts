import { type ErrorBody, ErrorCode } from "@plant-store/contract";

/** A refused request's 401: its Error body and its RFC 6750 challenge, as the server sends them. */
export interface Unauthorized {
  body: ErrorBody<401>;
  challenge: string;
}

/** Decides whether a bearer token is accepted; the fake accepts every well-formed token without one. */
export type VerifyToken = (token: string) => boolean | Promise<boolean>;

// RFC 6750 b64token after "Bearer ", as the server reads it.
const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** The server's 401: no error attribute for a missing token, error="invalid_token" with a description otherwise. */
export function unauthorized(code: "MissingToken" | "InvalidToken", message: string): Unauthorized {
  const challenge =
    code === "MissingToken"
      ? 'Bearer realm="plant-store"'
      : `Bearer realm="plant-store", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`;
  return { body: { error: ErrorCode[code], message }, challenge };
}

/** The 401 for this Authorization header, or undefined when its bearer token is accepted. */
export async function checkBearer(header: string | undefined, verifyToken: VerifyToken | undefined): Promise<Unauthorized | undefined> {
  if (header === undefined || !/^Bearer(\s|$)/i.test(header)) {
    return unauthorized("MissingToken", "a bearer token is required in the Authorization header");
  }
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) return unauthorized("InvalidToken", "token is malformed");
  if (verifyToken && !(await verifyToken(token))) return unauthorized("InvalidToken", "token was refused by verifyToken");
  return undefined;
}
