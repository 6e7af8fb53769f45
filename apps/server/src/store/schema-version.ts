/**
 * A store's schema as an operator reads it: the number its newest migration starts with (`0002_create_writer_probe`
 * is version 2), set against the newest this server knows.
 */
export function describeSchema(applied: readonly string[], known: readonly string[]): string {
  const newest = [...applied].sort().at(-1);
  if (newest === undefined) return "none: no server has opened it";
  const version = versionOf(newest);
  const ours = versionOf([...known].sort().at(-1) ?? "0");
  if (applied.some((name) => !known.includes(name))) return `version ${version}, newer than this server's ${ours}`;
  if (version < ours) return `version ${version}, older than this server's ${ours}: a start migrates it`;
  return `version ${version}, this server's`;
}

function versionOf(migration: string): number {
  return Number.parseInt(migration, 10) || 0;
}
