// The alternative to the backup API that the backup mode measures: VACUUM INTO on a connection of its own, in its
// own process (as `plant-store backup` runs beside the server). argv: <database> <snapshot>.
import { DatabaseSync } from "node:sqlite";

const [database, snapshot] = process.argv.slice(2);
if (!database || !snapshot) throw new Error("usage: node vacuum-into.js <database> <snapshot>");
const db = new DatabaseSync(database, { timeout: 5_000 });
db.prepare("VACUUM INTO ?").run(snapshot);
db.close();
