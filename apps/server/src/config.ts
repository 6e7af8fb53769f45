import { z } from "zod";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

/** The environment variables the server reads, with their defaults. The only reader of process.env. */
const EnvSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(["development", "production", "test"]).default("development")),
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().default("./data/plants.db")),
  JWT_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, "must be at least 32 characters (256 bits) for HS256").optional(),
  ),
  JWT_ISSUER: optionalString,
  JWT_AUDIENCE: optionalString,
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(LOG_LEVELS).default("info")),
  BODY_LIMIT_BYTES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(1024 * 1024),
  ),
  SHUTDOWN_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(10_000)),
  // Connection timeouts (see src/http/server-timeouts.ts): how long a client may take to send headers,
  // a whole request, and how long an idle keep-alive connection is kept.
  HEADERS_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(20_000)),
  REQUEST_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(60_000)),
  KEEP_ALIVE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(5_000)),
});

export type Config = z.infer<typeof EnvSchema>;

/** A configuration the process must not start with; the message names the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates the server's configuration from the environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const config = result.data;
  if (config.NODE_ENV === "production" && config.JWT_SECRET === undefined) {
    throw new ConfigError("invalid configuration: JWT_SECRET: is required when NODE_ENV=production");
  }
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    throw new ConfigError("invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS");
  }
  return config;
}
