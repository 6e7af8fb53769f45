import { SpanStatusCode, type Span, type Tracer } from "@opentelemetry/api";
import {
  ATTR_DB_OPERATION_BATCH_SIZE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
} from "@opentelemetry/semantic-conventions";
import type { NewPlant } from "@plant-store/contract";
import { groupCommitBatches } from "../store/group-commit-queue.js";
import type { PlantStore } from "../store/plant-store.js";
import { errorTypeOf } from "./error-type.js";
import type { DatabaseSystem } from "./tracing.js";

// db.system is the name older backends and dashboards know; semantic conventions 1.33 renamed it
// db.system.name, which pg's instrumentation reports on its query spans. Both are set.
const ATTR_DB_SYSTEM = "db.system";
/** What the create did: created, replayed or conflict. */
export const ATTR_CREATE_OUTCOME = "plant_store.create.outcome";

/**
 * The store with each create in a "PlantStore.create" span, active while the store works on it (PostgreSQL
 * query spans of a batch are children of the create that opened the batch). It records how many creates the
 * group commit wrote together (db.operation.batch.size, from the queue's diagnostics channel) and the outcome.
 * `dispose` unsubscribes from the channel.
 */
export function traceStore(
  tracer: Tracer,
  store: PlantStore,
  system: DatabaseSystem,
): { store: PlantStore; dispose: () => void } {
  const attributes = { [ATTR_DB_SYSTEM]: system, [ATTR_DB_SYSTEM_NAME]: system, [ATTR_DB_OPERATION_NAME]: "create" };
  // The span of each create waiting for its batch, by the NewPlant it was given (the queue's item).
  const waiting = new WeakMap<NewPlant, Span>();
  const onBatch = (message: unknown) => {
    const { items, size } = message as { items: NewPlant[]; size: number };
    for (const item of items) {
      waiting.get(item)?.setAttribute(ATTR_DB_OPERATION_BATCH_SIZE, size);
      waiting.delete(item);
    }
  };
  groupCommitBatches.subscribe(onBatch);
  const traced: PlantStore = {
    create: (plant) =>
      tracer.startActiveSpan("PlantStore.create", { attributes }, (span) => {
        waiting.set(plant, span);
        return store.create(plant).then(
          (outcome) => {
            span.setAttribute(ATTR_CREATE_OUTCOME, outcome.kind);
            span.end();
            return outcome;
          },
          (error: unknown) => {
            span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            throw error;
          },
        );
      }),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: traced, dispose: () => groupCommitBatches.unsubscribe(onBatch) };
}
