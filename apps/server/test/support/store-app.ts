import { createApp } from "../../src/app.js";
import { JwtVerifier } from "../../src/auth/jwt-verifier.js";
import { signToken } from "../../src/auth/sign-token.js";
import { createLogger } from "../../src/logging/logger.js";
import type { PlantStore } from "../../src/store/plant-store.js";
import { TEST_SECRET } from "./test-server.js";

/** The real app over a given store, with a valid bearer token for it. */
export function appOver(store: PlantStore) {
  const app = createApp({
    store,
    verifier: new JwtVerifier({ secret: TEST_SECRET }),
    logger: createLogger("silent"),
    bodyLimitBytes: 1024 * 1024,
  });
  return { app, auth: { Authorization: `Bearer ${signToken({ secret: TEST_SECRET })}` } };
}
