import { type NewPlant, type Plant, type PlantStoreContract, plantStoreContract } from "@plant-store/contract";
import { type ClientInferResponses, initClient, UnknownStatusError } from "@ts-rest/core";
import { startDeadline } from "./deadline.js";
import { PlantStoreApiError } from "./errors.js";
import { createFetcher, type FetchFunction } from "./fetcher.js";
import type { CallOptions, PlantStoreClientOptions } from "./options.js";
import { withBigIntSafeJson } from "./serialize-body.js";
import { createTokenSource } from "./token-source.js";

/** A plant to create. `id` is an int64: pass a bigint for ids beyond Number.MAX_SAFE_INTEGER. */
export type NewPlantInput = Omit<NewPlant, "id"> & { id: bigint | number };

/** Every response POST /plants can give, typed by status, as the contract declares them. */
export type CreatePlantResult = ClientInferResponses<PlantStoreContract["plants"]["create"]>;

/** The Plant Store client. */
export interface PlantStoreClient {
  plants: {
    /**
     * POST /plants: creates a plant and resolves with the response for any status the contract declares
     * (200, 400, 401, 403, 409, 413, 429, 500, 503). An identical repeat of the same id also answers 200, so
     * retrying is safe. Rejects with {@link PlantStoreApiError} for a status the contract does not declare
     * (e.g. a 502 from a proxy), with {@link PlantStoreTimeoutError} when `timeoutMs` runs out, with the signal's
     * reason when aborted, and with the fetch error when the network fails after the last retry.
     */
    create(plant: NewPlantInput, options?: CallOptions): Promise<CreatePlantResult>;
    /** Like `create`, but resolves with the stored Plant and rejects with {@link PlantStoreApiError} for every other status. */
    createOrThrow(plant: NewPlantInput, options?: CallOptions): Promise<Plant>;
  };
}

const DEFAULTS = { timeoutMs: 30_000, retries: 2, retryDelayMs: 200, maxRetryDelayMs: 10_000 } as const;

function toInt64(id: bigint | number): bigint {
  if (typeof id === "bigint") return id;
  if (!Number.isSafeInteger(id)) {
    throw new RangeError(`plant id ${id} is not a safe integer: pass ids beyond 2^53 as bigint`);
  }
  return BigInt(id);
}

/** Creates a typed client for the Plant Store API at `options.baseUrl`. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const fetchFn: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const policy = {
    retries: options.retries ?? DEFAULTS.retries,
    retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
  };
  const api = initClient(plantStoreContract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    baseHeaders: {},
    throwOnUnknownStatus: true,
    api: createFetcher(fetchFn, createTokenSource(options), policy),
  });

  const create = async (plant: NewPlantInput, callOptions: CallOptions = {}): Promise<CreatePlantResult> => {
    const body = withBigIntSafeJson({ ...plant, id: toInt64(plant.id) });
    const deadline = startDeadline(callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULTS.timeoutMs, callOptions.signal);
    try {
      return await api.plants.create({ body, fetchOptions: { signal: deadline.signal } });
    } catch (error) {
      if (error instanceof UnknownStatusError) throw new PlantStoreApiError(error.response.status, error.response.body);
      throw error;
    } finally {
      deadline.release();
    }
  };

  return {
    plants: {
      create,
      createOrThrow: async (plant, callOptions) => {
        const result = await create(plant, callOptions);
        if (result.status === 200) return result.body;
        throw new PlantStoreApiError(result.status, result.body);
      },
    },
  };
}
