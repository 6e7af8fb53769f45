import { type NewPlant, type PlantStoreContract, plantStoreContract } from "@plant-store/contract";
import { type ClientInferResponses, initClient } from "@ts-rest/core";
import { createFetcher, type FetchFunction } from "./fetcher.js";
import { withBigIntSafeJson } from "./serialize-body.js";

/** How to reach and authenticate to a Plant Store server. */
export interface PlantStoreClientOptions {
  /** The server's base URL, e.g. `https://plants.example.com`. */
  baseUrl: string;
  /** A fixed bearer token. Give this or `getToken`. */
  token?: string;
  /** Returns a bearer token; called for every request, so it can refresh expiring tokens. */
  getToken?: () => string | Promise<string>;
  /** The fetch to use; defaults to the global fetch of Node or the browser. */
  fetch?: FetchFunction;
}

/** A plant to create. `id` is an int64: pass a bigint for ids beyond Number.MAX_SAFE_INTEGER. */
export type NewPlantInput = Omit<NewPlant, "id"> & { id: bigint | number };

/** Every response POST /plants can give, typed by status, as the contract declares them. */
export type CreatePlantResult = ClientInferResponses<PlantStoreContract["plants"]["create"]>;

/** Options for one call. */
export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** The Plant Store client. */
export interface PlantStoreClient {
  plants: {
    /** POST /plants: creates a plant; an identical repeat of the same id also answers 200. */
    create(plant: NewPlantInput, options?: CallOptions): Promise<CreatePlantResult>;
  };
}

function toInt64(id: bigint | number): bigint {
  if (typeof id === "bigint") return id;
  if (!Number.isSafeInteger(id)) {
    throw new RangeError(`plant id ${id} is not a safe integer: pass ids beyond 2^53 as bigint`);
  }
  return BigInt(id);
}

function tokenSource(options: PlantStoreClientOptions): () => Promise<string> {
  const { token, getToken } = options;
  if (getToken) return async () => getToken();
  if (token !== undefined) return async () => token;
  throw new TypeError("createPlantStoreClient needs a token or a getToken function");
}

/** Creates a typed client for the Plant Store API at `options.baseUrl`. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const fetchFn: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const api = initClient(plantStoreContract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    baseHeaders: {},
    api: createFetcher(fetchFn, tokenSource(options)),
  });
  return {
    plants: {
      create: async (plant, callOptions = {}) => {
        const body = withBigIntSafeJson({ ...plant, id: toInt64(plant.id) });
        return api.plants.create({
          body,
          ...(callOptions.signal && { fetchOptions: { signal: callOptions.signal } }),
        });
      },
    },
  };
}
