import { z } from "zod";
import { SUPPORTED_ALGORITHMS, type SupportedAlgorithm } from "./auth/algorithms.js";
import { parseOrigins, parseTrustProxy } from "./edge/edge-config.js";
import { ConfigError, DatabaseUrlError } from "./operator-errors.js";
import { parseDatabaseUrl } from "./store/database-url.js";
import { TRACES_SAMPLERS } from "./tracing/traces-export.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

// Keys fetched over plain http could be swapped on the way; loopback is allowed for local identity providers.
const isTrustworthyJwksUrl = (value: string) => {
  if (!URL.canParse(value)) return true; // z.string().url() reports that one
  const url = new URL(value);
  return url.protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
};

// The public base URL is what clients put before /plants: a scheme they can call, nothing after the path.
const isBaseUrl = (value: string) => {
  if (!URL.canParse(value)) return true; // z.string().url() reports that one
  const url = new URL(value);
  return ["http:", "https:"].includes(url.protocol) && url.search === "" && url.hash === "";
};

const algorithmList = z.string().transform((value, ctx) => {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const unknown = names.filter((name) => !(SUPPORTED_ALGORITHMS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message:
        `${unknown.length > 0 ? `${unknown.join(", ")} is not accepted; ` : ""}` +
        `list one or more of ${SUPPORTED_ALGORITHMS.join(", ")}`,
    });
    return z.NEVER;
  }
  return names as SupportedAlgorithm[];
});

const otlpEndpoint = z.string().regex(/^https?:\/\/[^/]/i, "must be an http:// or https:// URL");
const otlpProtocol = z.enum(["http/protobuf", "http/json"], {
  errorMap: () => ({ message: "must be http/protobuf or http/json (this server does not export over grpc)" }),
});
/** The environment variables the server reads, with their defaults. The only reader of process.env. */
const EnvSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(["development", "production", "test"]).default("development")),
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  // Connections the kernel holds for the server to accept (listen(2)'s backlog; the kernel caps it at somaxconn).
  LISTEN_BACKLOG: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(511)),
  // Parsed here, once, into the store it names; a value that names none is a configuration error, not a database to
  // wait for (the start retries those).
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default("./data/plants.db")
      .transform((value, ctx) => {
        try {
          return parseDatabaseUrl(value);
        } catch (error) {
          if (!(error instanceof DatabaseUrlError)) throw error;
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message });
          return z.NEVER;
        }
      }),
  ),
  JWT_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, "must be at least 32 characters (256 bits) for HS256").optional(),
  ),
  // The secret tokens were signed with before JWT_SECRET: both verify while signers move over (a rotation).
  JWT_SECRET_PREVIOUS: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, "must be at least 32 characters (256 bits) for HS256").optional(),
  ),
  JWT_PUBLIC_KEY: optionalString,
  JWT_PUBLIC_KEY_FILE: optionalString,
  JWT_JWKS_URI: z.preprocess(
    emptyAsUndefined,
    z.string().url().refine(isTrustworthyJwksUrl, "must be an https URL (http only for localhost)").optional(),
  ),
  JWT_JWKS_REQUESTS_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(10)),
  JWT_JWKS_CACHE_MAX_AGE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(600)),
  JWT_ALGORITHMS: z.preprocess(emptyAsUndefined, algorithmList.optional()),
  JWT_REQUIRED_SCOPE: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      // RFC 6749 scope tokens: printable ASCII without space, `"` or `\` (they are quoted in WWW-Authenticate).
      .regex(/^[ \t\n\x21\x23-\x5B\x5D-\x7E]*$/, 'scopes are printable ASCII without " or \\')
      .transform((value) => value.split(/\s+/).filter((scope) => scope !== ""))
      .optional(),
  ),
  RATE_LIMIT_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(0)),
  JWT_ISSUER: optionalString,
  JWT_AUDIENCE: optionalString,
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(LOG_LEVELS).default("info")),
  BODY_LIMIT_BYTES: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(1)
      .default(1024 * 1024),
  ),
  SHUTDOWN_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(10_000)),
  PG_POOL_SIZE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1000).default(10)),
  PG_STATEMENT_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(5_000)),
  PG_CONNECT_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(2_000)),
  // Unset: see defaultShutdownDelayMs.
  SHUTDOWN_DELAY_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).optional()),
  CORS_ORIGINS: z.preprocess(emptyAsUndefined, z.string().default("").transform(parseOrigins)),
  TRUST_PROXY: z.preprocess(emptyAsUndefined, z.string().default("false").transform(parseTrustProxy)),
  METRICS_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  METRICS_HOST: optionalString,
  // Connection timeouts (see src/connection/server-timeouts.ts): how long a client may take to send headers,
  // a whole request, and how long an idle keep-alive connection is kept.
  HEADERS_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(20_000)),
  REQUEST_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(60_000)),
  KEEP_ALIVE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(5_000)),
  // OpenTelemetry's standard variables that decide whether and how traces are exported, and, since SDK 3 reads
  // none itself, the sampler and the batch span processor's (see tracesExport and docs/tracing.md); the
  // exporter still reads its own (OTEL_EXPORTER_OTLP_* headers, timeout, compression), the resource detector
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
  OTEL_SDK_DISABLED: z.preprocess(
    (value) => (typeof value === "string" && value !== "" ? value.toLowerCase() : undefined),
    z.enum(["true", "false"]).default("false"),
  ),
  OTEL_TRACES_EXPORTER: z.preprocess(emptyAsUndefined, z.enum(["otlp", "none"]).default("otlp")),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(emptyAsUndefined, otlpEndpoint.optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess(emptyAsUndefined, otlpEndpoint.optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(emptyAsUndefined, otlpProtocol.default("http/protobuf")),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.preprocess(emptyAsUndefined, otlpProtocol.optional()),
  OTEL_TRACES_SAMPLER: z.preprocess(emptyAsUndefined, z.enum(TRACES_SAMPLERS).default("parentbased_always_on")),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(1).optional()),
  OTEL_BSP_MAX_QUEUE_SIZE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(2048)),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(512)),
  OTEL_BSP_SCHEDULE_DELAY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(5_000)),
  OTEL_BSP_EXPORT_TIMEOUT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(30_000)),
  // Refuses, with 503 Overloaded, a request that cannot be answered before its deadline: its caller's, or
  // QUEUE_TIMEOUT_MS (connection/shed-overload.ts). Off by default: docs/performance.md#overload says why.
  ADMISSION_CONTROL: z.preprocess(
    emptyAsUndefined,
    z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
  ),
  QUEUE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(999_999_999).default(10_000)),
  // Development switch: check every response against the contract and answer a broken one with a loud 500.
  VALIDATE_RESPONSES: z.preprocess(
    emptyAsUndefined,
    z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
  ),
  // The API's public base URL (the spec's {base_url}), listed as the server in GET /openapi.json.
  PUBLIC_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .url()
      .refine(isBaseUrl, "must be an absolute http:// or https:// URL without query or fragment")
      .transform((value) => value.replace(/\/+$/, ""))
      .optional(),
  ),
});

/**
 * How long the listener stays open after SIGTERM. Kubernetes takes a terminating pod out of its Service's
 * endpoints while it sends SIGTERM, and kube-proxy, ingress controllers and cloud load balancers take a
 * few seconds to stop opening connections to it: in production the server keeps accepting for 5 s, so
 * those connections are answered rather than refused. Elsewhere nothing routes to the process and Ctrl-C
 * should not wait.
 */
function defaultShutdownDelayMs(nodeEnv: "development" | "production" | "test"): number {
  return nodeEnv === "production" ? 5_000 : 0;
}

/** The variables with the defaults that depend on others filled in. */
const ConfigSchema = EnvSchema.transform((env) => ({
  ...env,
  SHUTDOWN_DELAY_MS: env.SHUTDOWN_DELAY_MS ?? defaultShutdownDelayMs(env.NODE_ENV),
}));

export type Config = z.infer<typeof ConfigSchema>;

/** Where token keys come from: exactly one of these, or none for a development run with a generated secret. */
const KEY_SOURCES = ["JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_PUBLIC_KEY_FILE", "JWT_JWKS_URI"] as const;

/**
 * Reads and validates the server's configuration from the environment. `keySourceRequired: false` is for the
 * operator commands (src/cli/main.ts), which check no token: a backup needs no JWT_SECRET in production.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, { keySourceRequired = true } = {}): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    // One line names every variable that is wrong; `setting` is the first.
    const [first, ...others] = result.error.issues;
    throw new ConfigError(
      first!.path.join("."),
      [first!.message, ...others.map((issue) => `${issue.path.join(".")}: ${issue.message}`)].join("; "),
    );
  }
  const config = result.data;
  const keySources = KEY_SOURCES.filter((name) => config[name] !== undefined);
  if (keySources.length > 1) {
    throw new ConfigError(
      keySources[1]!,
      `cannot be combined with ${keySources[0]}; set one of ${KEY_SOURCES.join(", ")}`,
    );
  }
  if (config.JWT_SECRET_PREVIOUS !== undefined && config.JWT_SECRET === undefined) {
    throw new ConfigError("JWT_SECRET_PREVIOUS", "is accepted only beside JWT_SECRET, which signs new tokens");
  }
  if (config.JWT_SECRET_PREVIOUS !== undefined && config.JWT_SECRET_PREVIOUS === config.JWT_SECRET) {
    // The same secret twice is a rotation that rotated nothing: the old secret most likely went unset by mistake.
    throw new ConfigError(
      "JWT_SECRET_PREVIOUS",
      "equals JWT_SECRET; set it to the secret being retired, or unset it once the rotation is over",
    );
  }
  if (keySourceRequired && config.NODE_ENV === "production" && keySources.length === 0) {
    throw new ConfigError(
      "JWT_SECRET",
      `is required when NODE_ENV=production (or one of ${KEY_SOURCES.slice(1).join(", ")})`,
    );
  }
  if (config.OTEL_TRACES_SAMPLER.endsWith("traceidratio") && config.OTEL_TRACES_SAMPLER_ARG === undefined) {
    throw new ConfigError(
      "OTEL_TRACES_SAMPLER_ARG",
      `is required by ${config.OTEL_TRACES_SAMPLER} (a ratio from 0 to 1)`,
    );
  }
  if (config.OTEL_BSP_MAX_EXPORT_BATCH_SIZE > config.OTEL_BSP_MAX_QUEUE_SIZE) {
    throw new ConfigError("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "must not exceed OTEL_BSP_MAX_QUEUE_SIZE");
  }
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    throw new ConfigError("HEADERS_TIMEOUT_MS", "must not exceed REQUEST_TIMEOUT_MS");
  }
  return config;
}
