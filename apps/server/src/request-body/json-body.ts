import { ErrorCode } from "@plant-store/contract";
import contentType from "content-type";
import type { RequestHandler } from "express";
import { parse } from "lossless-json";
import getRawBody from "raw-body";
import { BadRequestError, PayloadTooLargeError } from "../errors/http-errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Integer literals become bigint so that every int64 id survives exactly (JSON.parse would round
 * 9007199254740993 to ...992); other numbers stay numbers. lossless-json also rejects repeated keys
 * with different values and keeps `__proto__` as a plain own key, so a body cannot pollute prototypes.
 */
function parseNumber(literal: string): bigint | number {
  return /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal);
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

function requireJsonContentType(header: string | undefined): void {
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header ?? "");
  } catch {
    throw new BadRequestError(ErrorCode.UnsupportedContentType, "Content-Type must be application/json");
  }
  const charset = parsed.parameters.charset?.toLowerCase();
  if (parsed.type !== "application/json" || (charset !== undefined && charset !== "utf-8")) {
    throw new BadRequestError(ErrorCode.UnsupportedContentType, "Content-Type must be application/json (UTF-8)");
  }
}

async function readBody(req: Parameters<RequestHandler>[0], limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: limitBytes, length: req.headers["content-length"] });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") throw new PayloadTooLargeError(limitBytes);
    throw new BadRequestError(ErrorCode.MalformedJson, "request body could not be read completely");
  }
}

/** Reads a JSON request body losslessly into req.body, with a size limit; failures are contract errors. */
export function jsonBody(limitBytes: number): RequestHandler {
  return async (req, _res, next) => {
    try {
      if (!hasBody(req.headers)) {
        throw new BadRequestError(ErrorCode.BodyRequired, "request body is required: send a NewPlant as JSON");
      }
      requireJsonContentType(req.headers["content-type"]);
      const bytes = await readBody(req, limitBytes);
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new BadRequestError(ErrorCode.MalformedJson, "request body is not valid UTF-8");
      }
      if (text.trim() === "") {
        throw new BadRequestError(ErrorCode.BodyRequired, "request body is required: send a NewPlant as JSON");
      }
      try {
        req.body = parse(text, null, parseNumber);
      } catch (error) {
        throw new BadRequestError(ErrorCode.MalformedJson, `request body is not valid JSON: ${(error as Error).message}`);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
