import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A local OTLP/HTTP endpoint for the traced Plant Store: it reads each export whole and answers 200. */
export interface OtlpSink {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** Exports received so far. */
  exports(): number;
  close(): Promise<void>;
}

/**
 * Stands in for a collector next to the server: it takes every export as a collector on the same host
 * would (read, acknowledge with an empty ExportTraceServiceResponse), without decoding, so what is measured
 * is the server's side of tracing: making, batching, encoding and sending spans.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume().on("end", () => {
      received++;
      // An empty protobuf message is zero bytes.
      res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": "0" }).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
