import { isIP } from "node:net";
import type { z } from "zod";

/** CORS_ORIGINS: a comma-separated list of exact origins; "*" is refused so the allowlist stays one. */
export function parseOrigins(value: string, ctx: z.RefinementCtx): string[] {
  const origins = value
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      ctx.addIssue({ code: "custom", message: `"${origin}" is not an origin like https://app.example.com` });
    }
  }
  return origins;
}

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** TRUST_PROXY as Express takes it: true/false, a hop count, or a comma-separated list of addresses/subnets. */
export function parseTrustProxy(value: string, ctx: z.RefinementCtx): boolean | number | string {
  if (value === "true" || value === "false") return value === "true";
  if (/^\d+$/.test(value)) return Number(value);
  for (const entry of value.split(",").map((part) => part.trim())) {
    const [address = "", prefix] = entry.split("/");
    const validPrefix = prefix === undefined || /^\d{1,3}$/.test(prefix);
    if (!PROXY_NAMES.has(entry) && !(isIP(address) !== 0 && validPrefix)) {
      ctx.addIssue({
        code: "custom",
        message: `"${entry}" is not true, false, a hop count, loopback/linklocal/uniquelocal or an address/subnet`,
      });
    }
  }
  return value;
}
