import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import { gunzipSync } from "node:zlib";
// The OTLP protobuf codec OpenTelemetry JS generated with protobufjs from the opentelemetry-proto definitions
// (otlp-transformer 0.216.0, the last release that ships it for traces): a real decoder, independent of the
// serializer the exporter uses.
import otlp from "@opentelemetry/otlp-transformer/build/src/generated/root.js";
import { closeServer } from "@plant-store/test-support/close-server";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";

/** A span as it arrived, the same whether it came as OTLP protobuf or OTLP JSON. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
  scope: string;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporter adds /v1/traces. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The Content-Type of every export received. */
  contentTypes: string[];
  /** Resolves with the spans once `done(spans)` holds for those received, waiting up to timeoutMs. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

interface MessageCodec {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: { longs: NumberConstructor; bytes: StringConstructor }): object;
  encode(message: object): { finish(): Uint8Array };
}
// The generated module is typed only as a protobufjs Root; these are the two messages it holds that we use.
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = (
  otlp as unknown as {
    opentelemetry: {
      proto: {
        collector: { trace: { v1: Record<"ExportTraceServiceRequest" | "ExportTraceServiceResponse", MessageCodec> } };
      };
    };
  }
).opentelemetry.proto.collector.trace.v1;

function attributesOf(list: OtlpKeyValue[] = []): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value = {} } of list) {
    attributes[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  }
  return attributes;
}

/** The spans of one export; ids in hex as OTLP JSON carries them (protobuf's bytes are converted). */
function spansOf(body: OtlpExport, hex: (id: string | undefined) => string): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap(({ resource, scopeSpans = [] }) =>
    scopeSpans.flatMap(({ scope, spans = [] }) =>
      spans.map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        resource: attributesOf(resource?.attributes),
        scope: scope?.name ?? "",
      })),
    ),
  );
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(bytes) : bytes;
}

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 that decodes what arrives (application/x-protobuf with the OTLP
 * protobuf codec, application/json as OTLP JSON) and answers as a collector does. With `answer: false` it
 * reads exports and never answers them, like a collector that hangs. Closed when the test (or file) ends.
 */
export async function startOtlpReceiver(options: { answer?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const arrivals = new EventEmitter();
  const server = createServer(async (req, res) => {
    const contentType = req.headers["content-type"] ?? "";
    const body = await bodyOf(req);
    if (req.method !== "POST" || req.url !== "/v1/traces") {
      res.writeHead(404).end();
      return;
    }
    contentTypes.push(contentType);
    const protobuf = contentType.startsWith("application/x-protobuf");
    const received = protobuf
      ? spansOf(
          ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
            longs: Number,
            bytes: String,
          }) as OtlpExport,
          (id) => Buffer.from(id ?? "", "base64").toString("hex"),
        )
      : spansOf(JSON.parse(body.toString("utf8")) as OtlpExport, (id) => id ?? "");
    spans.push(...received);
    arrivals.emit("spans");
    if (options.answer === false) return;
    res.writeHead(200, { "content-type": contentType });
    res.end(protobuf ? ExportTraceServiceResponse.encode({}).finish() : "{}");
  });
  const port = await listenOnLoopback(server);

  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(done, timeoutMs = 10_000) {
      const deadline = AbortSignal.timeout(timeoutMs);
      while (!done(spans)) {
        try {
          await once(arrivals, "spans", { signal: deadline });
        } catch {
          throw new Error(
            `the expected spans did not arrive within ${timeoutMs} ms; received:\n${JSON.stringify(spans, null, 2)}`,
          );
        }
      }
      return spans;
    },
    close: () => closeServer(server),
  };
}
