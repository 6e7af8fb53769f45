import { ErrorCode } from "@plant-store/contract";
import type { RequestHandler } from "express";
import { UnauthorizedError } from "../http/http-errors.js";
import { InvalidTokenError, type JwtVerifier } from "./jwt-verifier.js";

// RFC 6750 b64token after "Bearer ".
const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** Requires a valid bearer token before anything else of the request (its body included) is read. */
export function bearerAuth(verifier: Pick<JwtVerifier, "verify">): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || !/^Bearer(\s|$)/i.test(header)) {
      next(new UnauthorizedError(ErrorCode.MissingToken, "a bearer token is required in the Authorization header"));
      return;
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      next(new UnauthorizedError(ErrorCode.InvalidToken, "token is malformed"));
      return;
    }
    try {
      res.locals.claims = verifier.verify(token);
      next();
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        next(new UnauthorizedError(ErrorCode.InvalidToken, error.message));
      } else {
        next(error);
      }
    }
  };
}
