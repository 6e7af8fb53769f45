import { ErrorCode } from "@plant-store/contract";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { contractViolation, responseValidation } from "../src/edge/response-validation.js";
import { capturingLogger } from "./support/log-capture.js";

describe("response validation (VALIDATE_RESPONSES)", () => {
  it("a response that breaks the contract is logged as an error and answered with a 500 instead", async () => {
    const logs = capturingLogger();
    const app = express();
    app.use(responseValidation(logs.logger));
    // A 409 with a 400's code: what a wrong mapping in the server would send.
    app.get("/broken", (_req, res) => {
      res.status(409).json({ error: ErrorCode.ValidationFailed, message: "wrong code for 409" });
    });
    const res = await request(app).get("/broken");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: ErrorCode.InternalError, message: "internal server error" });
    const line = logs.lines().find((entry) => entry.msg === "response breaks the contract");
    expect(line).toMatchObject({ level: 50 });
    expect(String(line?.violation)).toMatch(/^status 409 body does not match its schema: error: /);
  });

  it("judges each status against the contract's schema for it", () => {
    expect(contractViolation("POST", "/plants", 200, { name: "Monstera" })).toBeUndefined();
    expect(contractViolation("POST", "/plants", 200, { tag: "no name" })).toMatch(/^status 200 body does not match/);
    expect(contractViolation("POST", "/plants", 201, { name: "Monstera" })).toMatch(/^status 201 is not declared/);
    expect(
      contractViolation("GET", undefined, 404, { error: ErrorCode.NotFound, message: "no route" }),
    ).toBeUndefined();
    expect(contractViolation("GET", undefined, 418, { error: 41801, message: "teapot" })).toMatch(
      /^status 418 is not declared/,
    );
    expect(contractViolation("POST", "/plants", 503, { error: ErrorCode.ShuttingDown, messag: "typo" })).toMatch(
      /message/,
    );
    // Successes outside the contract (health, metrics, docs) are not its business.
    expect(contractViolation("GET", "/healthz", 200, { status: "ok" })).toBeUndefined();
  });
});
