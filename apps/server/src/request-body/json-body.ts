import { ErrorCode } from "@plant-store/contract";
import { bodyRequired, contentTypeRejection, declaresBody, parseJsonBody } from "@plant-store/contract/wire";
import type { RequestHandler } from "express";
import getRawBody from "raw-body";
import { BadRequestError, PayloadTooLargeError } from "../http-errors/http-errors.js";
import { bodyReadStarted, bodyRefused } from "./body-diagnostics.js";

async function readBody(req: Parameters<RequestHandler>[0], limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: limitBytes, length: req.headers["content-length"] });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") throw new PayloadTooLargeError(limitBytes);
    throw new BadRequestError(ErrorCode.MalformedJson, "request body could not be read completely");
  }
}

/**
 * Reads a JSON request body losslessly into req.body, with a size limit; failures are contract errors.
 * The rules (Content-Type, UTF-8, int64 integers as bigint, repeated keys refused) are the contract's
 * wire rules, shared with the client's fake server.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return async (req, _res, next) => {
    if (bodyReadStarted.hasSubscribers) bodyReadStarted.publish({ req });
    try {
      if (!declaresBody(req.headers)) throw new BadRequestError(bodyRequired.error, bodyRequired.message);
      const refused = contentTypeRejection(req.headers["content-type"]);
      if (refused) throw new BadRequestError(refused.error, refused.message);
      const parsed = parseJsonBody(await readBody(req, limitBytes));
      if ("rejection" in parsed) throw new BadRequestError(parsed.rejection.error, parsed.rejection.message);
      req.body = parsed.body;
      next();
    } catch (error) {
      if (bodyRefused.hasSubscribers) bodyRefused.publish({ req, error });
      next(error);
    }
  };
}
