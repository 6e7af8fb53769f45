import { startCappedServer as startCapped } from "@plant-store/test-support/capped-server";
import { builtServerEntries, issueTokenWithCli } from "@plant-store/test-support/server-process";

const server = builtServerEntries(import.meta.url);

/** The built `@plant-store/server` held to a share of a core (startCappedServer of @plant-store/test-support). */
export const startCappedServer = (env: Record<string, string>, cpu: Parameters<typeof startCapped>[2]) =>
  startCapped(server.main, env, cpu);

/** One bearer token per subject from the server's own `plant-store issue-token`, signed with `secret`. */
export const issueTokens = (secret: string, subjects: string[]): Promise<string[]> =>
  Promise.all(subjects.map((subject) => issueTokenWithCli(server.cli, { JWT_SECRET: secret }, subject)));
