import { type ErrorStatus, errorSchemas, PlantSchema, plantStoreContract } from "@plant-store/contract";
import type { RequestHandler, Response } from "express";
import type { ZodTypeAny } from "zod";
import { errorBody } from "../http-errors/error-body.js";
import { InternalServerError } from "../http-errors/http-errors.js";
import type { Logger } from "../logger.js";
import { requestLogger } from "../request-logger.js";

const { method: CREATE_METHOD, path: CREATE_PATH } = plantStoreContract.plants.create;

/**
 * The contract's schema for a response, or undefined when the contract does not govern it: every error
 * status has its Error schema (whatever the route), POST /plants' 200 is a Plant, and other successes
 * (health, metrics, docs) are outside the contract.
 */
function schemaFor(method: string, route: string | undefined, status: number): ZodTypeAny | undefined | "undeclared" {
  if (status >= 400) return errorSchemas[status as ErrorStatus] ?? "undeclared";
  if (method === CREATE_METHOD && route === CREATE_PATH) return status === 200 ? PlantSchema : "undeclared";
  return undefined;
}

/** Why a response breaks the contract, or undefined when it keeps it (or is not one the contract governs). */
export function contractViolation(
  method: string,
  route: string | undefined,
  status: number,
  body: unknown,
): string | undefined {
  const schema = schemaFor(method, route, status);
  if (schema === undefined) return undefined;
  if (schema === "undeclared")
    return `status ${status} is not declared by the contract for ${method} ${route ?? "(no route)"}`;
  const result = schema.safeParse(body);
  if (result.success) return undefined;
  return `status ${status} body does not match its schema: ${result.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ")}`;
}

/**
 * VALIDATE_RESPONSES=true (development and the test suites): every JSON response is checked against the
 * contract before it is sent; one that breaks it is logged as an error and replaced by a 500, so the
 * mistake is loud rather than shipped. Off in production: it costs a schema check per response.
 */
export function responseValidation(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const send = res.json;
    res.json = function checkedJson(this: Response, body: unknown) {
      const violation = contractViolation(req.method, req.route?.path, this.statusCode, body);
      if (violation === undefined) return send.call(this, body);
      requestLogger(logger, req).error({ violation, body }, "response breaks the contract");
      return send.call(this.status(500), errorBody(new InternalServerError()));
    };
    next();
  };
}
