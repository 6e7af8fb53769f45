/** What the runner passes a Fastify peer: argv = [database file, HS256 secret, log file]. */
export function peerArguments(): { databaseFile: string; secret: string; logFile: string } {
  const [databaseFile, secret, logFile] = process.argv.slice(2);
  if (!databaseFile || !secret || !logFile) {
    throw new Error("usage: node <peer>.js <database file> <HS256 secret> <log file>");
  }
  return { databaseFile, secret, logFile };
}

/** The JSON schema both peers validate the body with (the contract's NewPlant, as most teams write it). */
export const newPlantSchema = {
  type: "object",
  required: ["id", "name"],
  additionalProperties: false,
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    tag: { type: "string" },
  },
} as const;

export interface NewPlantBody {
  id: number;
  name: string;
  tag?: string;
}

/** The plants table, as the built server's migration creates it. */
export const CREATE_TABLE = "CREATE TABLE IF NOT EXISTS plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT)";
