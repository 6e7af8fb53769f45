import type { NewPlant } from "@plant-store/contract";
import type { CreateOutcome, PlantStore } from "../store/plant-store.js";
import type { Metrics } from "./metrics.js";

/** The same store, with every create and ping timed into plant_store_operation_duration_seconds. */
export function timedStore(store: PlantStore, metrics: Metrics): PlantStore {
  const timed = async <T>(operation: string, run: () => Promise<T>, outcomeOf: (value: T) => string) => {
    const stopTimer = metrics.storeDuration.startTimer({ operation });
    try {
      const value = await run();
      stopTimer({ outcome: outcomeOf(value) });
      return value;
    } catch (error) {
      stopTimer({ outcome: "error" });
      throw error;
    }
  };
  return {
    create: (plant: NewPlant) => timed("create", () => store.create(plant), (outcome: CreateOutcome) => outcome.kind),
    ping: () => timed("ping", () => store.ping(), () => "ok"),
    close: () => store.close(),
  };
}
