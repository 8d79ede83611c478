import { createServer, type Server } from "node:http";

/** One span as an OTLP/HTTP JSON export carried it, flattened. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: an OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Requests that were not a JSON export to /v1/traces. */
  refused: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: { key: string; value: AnyValue }[];
      }[];
    }[];
  }[];
}

const valueOf = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.doubleValue ?? v.boolValue ?? "";

const attributesOf = (list: { key: string; value: AnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** OTLP JSON carries ids in hex; a base64 id (protobuf's JSON mapping) is turned into hex too. */
const hexId = (id = "") => (/^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, "base64").toString("hex"));

/** A real OTLP/HTTP receiver on loopback, decoding JSON trace exports (https://opentelemetry.io/docs/specs/otlp/#otlphttp). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces" || !req.headers["content-type"]?.startsWith("application/json")) {
        refused.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              service,
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              parentSpanId: hexId(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              startNs: BigInt(span.startTimeUnixNano),
              endNs: BigInt(span.endTimeUnixNano),
              attributes: attributesOf(span.attributes),
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    refused,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
