import { createServer } from "node:http";
import { closeServer, listenOnFreePort } from "@plant-store/test-support/close-server";

/** A local OTLP/HTTP receiver for the traced variant: it reads each export and acknowledges it, as a collector would. */
export interface OtlpSink {
  url: string;
  /** Export requests and bytes received so far (the report states them, so a variant that exported nothing shows). */
  received(): { requests: number; bytes: number };
  close(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1 (port 0); every POST answers 200 with an empty export response. */
export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      requests++;
      const json = req.headers["content-type"]?.includes("json");
      res.writeHead(200, { "Content-Type": json ? "application/json" : "application/x-protobuf" });
      // An empty ExportTraceServiceResponse: "{}" in JSON, zero bytes in protobuf.
      res.end(json ? "{}" : undefined);
    });
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ requests, bytes }),
    close: () => closeServer(server),
  };
}
