import { plantStoreHandlers } from "../../src/msw/index.js";
import {
  createFakePlantStore,
  type FakeControls,
  type FakeOptions,
  startFakePlantStore,
} from "../../src/testing/index.js";
import { listenWithMsw, mswMajor } from "./msw-version.js";

/** One fake, started behind one of its transports: where the client goes, the fetch to use, the controls. */
export interface StartedFake extends FakeControls {
  baseUrl: string;
  /** The fetch that reaches the fake: the global one for the HTTP fake and msw, the fake's own otherwise. */
  fetch: typeof fetch;
  /** The client option that reaches it (nothing for a fake the global fetch reaches). */
  clientFetch: { fetch?: typeof fetch };
  close(): Promise<void>;
}

export interface FakeTransport {
  name: string;
  start(options?: FakeOptions): Promise<StartedFake>;
}

/** The three ways to reach the fake: a real HTTP server, a fetch function, and msw's setupServer (where msw runs). */
export const transports: FakeTransport[] = [
  {
    name: "startFakePlantStore (HTTP)",
    async start(options) {
      const fake = await startFakePlantStore(options);
      return { ...fake, plants: fake.plants, baseUrl: fake.url, fetch, clientFetch: {}, close: fake.close };
    },
  },
  {
    name: "createFakePlantStore (fetch)",
    async start(options) {
      const fake = createFakePlantStore(options);
      const fakeFetch = fake.fetch as typeof fetch;
      return {
        ...fake,
        baseUrl: "https://plants.example.test",
        fetch: fakeFetch,
        clientFetch: { fetch: fakeFetch },
        close: async () => fake.reset(),
      };
    },
  },
];

/** msw's setupServer over plantStoreHandlers, for the msw major this project resolves. */
export const mswTransport: FakeTransport = {
  name: `plantStoreHandlers (msw ${mswMajor} setupServer)`,
  async start(options) {
    const baseUrl = "https://plants.example.test/v1";
    const fake = plantStoreHandlers({ ...options, baseUrl });
    const server = await listenWithMsw(fake.handlers);
    return {
      ...fake,
      baseUrl,
      // Read at each call: msw has patched the global fetch while it listens.
      fetch: (input, init) => fetch(input, init),
      clientFetch: {},
      close: async () => {
        fake.reset();
        server.close();
      },
    };
  },
};
