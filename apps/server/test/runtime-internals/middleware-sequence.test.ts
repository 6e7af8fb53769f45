import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { middlewareSequence } from "../../src/runtime-internals/middleware-sequence.js";

function appWith(handlers: RequestHandler[], seen: string[]) {
  const app = express();
  app.use(middlewareSequence(handlers));
  app.get("/", (_req, res) => {
    seen.push("route");
    res.json({ seen });
  });
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(500).json({ error: (error as Error).message, seen });
  };
  app.use(onError);
  return app;
}

describe("middlewareSequence", () => {
  it("runs each middleware in order, also when one calls next() later, then the route", async () => {
    const seen: string[] = [];
    const app = appWith(
      [
        (_req, _res, next) => {
          seen.push("first");
          next();
        },
        (_req, _res, next) => {
          seen.push("second");
          setTimeout(next, 5);
        },
        (_req, _res, next) => {
          seen.push("third");
          next();
        },
      ],
      seen,
    );
    const res = await request(app).get("/").expect(200);
    expect(res.body.seen).toEqual(["first", "second", "third", "route"]);
  });

  it("skips the rest and the route on next(error) or a throw, as separate layers would", async () => {
    for (const failing of [
      ((_req, _res, next) => next(new Error("refused"))) as RequestHandler,
      (() => {
        throw new Error("refused");
      }) as RequestHandler,
    ]) {
      const seen: string[] = [];
      const after: RequestHandler = (_req, _res, next) => {
        seen.push("after");
        next();
      };
      const app = appWith([failing, after], seen);
      const res = await request(app).get("/").expect(500);
      expect(res.body).toEqual({ error: "refused", seen: [] });
    }
  });
});
