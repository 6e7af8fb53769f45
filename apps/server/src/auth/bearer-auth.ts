import { BEARER_SCHEME, BEARER_TOKEN } from "@plant-store/contract/wire";
import type { RequestHandler } from "express";
import type { JwtPayload } from "jsonwebtoken";
import { InvalidTokenError, MissingTokenError } from "./auth-errors.js";
import type { TokenVerifier } from "./token-verifier.js";

/** Requires a valid bearer token before anything else of the request (its body included) is read. */
export function bearerAuth(verifier: TokenVerifier): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || !BEARER_SCHEME.test(header)) {
      next(new MissingTokenError());
      return;
    }
    const token = BEARER_TOKEN.exec(header)?.[1];
    if (token === undefined) {
      next(new InvalidTokenError("token is malformed"));
      return;
    }
    const refuse = (error: unknown) => next(error);
    const accept = (claims: JwtPayload) => {
      res.locals.claims = claims;
      next();
    };
    let claims: JwtPayload | Promise<JwtPayload>;
    try {
      claims = verifier.verify(token);
    } catch (error) {
      refuse(error);
      return;
    }
    // A fixed key verifies synchronously; only a JWKS lookup costs a promise.
    if (claims instanceof Promise) claims.then(accept, refuse);
    else accept(claims);
  };
}
