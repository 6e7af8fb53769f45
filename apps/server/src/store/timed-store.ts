import { performance } from "node:perf_hooks";
import type { Metrics } from "../process-state/metrics.js";
import type { CreateOutcome, PlantStore } from "./plant-store.js";

/** The same store, with every create and ping timed into plant_store_operation_duration_seconds. */
export function timedStore(store: PlantStore, metrics: Metrics): PlantStore {
  // Plain then() callbacks rather than an async wrapper: this runs once per request.
  const timed = <T>(
    operation: string,
    started: number,
    result: Promise<T>,
    outcomeOf: (value: T) => string,
  ): Promise<T> => {
    const observe = (outcome: string) =>
      metrics.storeDuration.observe({ operation, outcome }, (performance.now() - started) / 1000);
    return result.then(
      (value) => {
        observe(outcomeOf(value));
        return value;
      },
      (error: unknown) => {
        observe("error");
        throw error;
      },
    );
  };
  const createOutcome = (outcome: CreateOutcome) => outcome.kind;
  const pingOutcome = () => "ok";
  return {
    create: (plant) => timed("create", performance.now(), store.create(plant), createOutcome),
    ping: () => timed("ping", performance.now(), store.ping(), pingOutcome),
    close: () => store.close(),
  };
}
