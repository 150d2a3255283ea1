/**
 * An OTLP/HTTP receiver on 127.0.0.1, for tests that export for real: it takes
 * `POST /v1/traces`, `/v1/metrics` and `/v1/logs` with `Content-Type: application/json`, decodes
 * the body by the OTLP JSON encoding (the proto3 JSON mapping of `ExportTraceServiceRequest` and
 * `ExportMetricsServiceRequest`: lowerCamelCase fields, trace and span ids as hex, 64-bit
 * integers as numbers or decimal strings) and answers `200` with the empty
 * `Export…ServiceResponse` (`{}`: everything accepted). Anything else is refused with the status
 * the specification gives (404, 405, 415, 400) and recorded in `refused`.
 */
import { Effect, Exit, Schema, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** int64 in OTLP JSON: a number or a decimal string. */
const Int64 = Schema.Union([Schema.Number, Schema.NumberFromString])
const Hex = (bytes: number) => Schema.String.check(Schema.isPattern(new RegExp(`^[0-9a-f]{${bytes * 2}}$`)))

interface AnyValueEncoded {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly doubleValue?: number | string
  readonly boolValue?: boolean
  readonly arrayValue?: { readonly values?: ReadonlyArray<AnyValueEncoded> }
}
export interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: number
  readonly doubleValue?: number
  readonly boolValue?: boolean
  readonly arrayValue?: { readonly values?: ReadonlyArray<AnyValue> }
}
const AnyValue: Schema.Codec<AnyValue, AnyValueEncoded> = Schema.Struct({
  stringValue: Schema.optionalKey(Schema.String),
  intValue: Schema.optionalKey(Int64),
  doubleValue: Schema.optionalKey(Int64),
  boolValue: Schema.optionalKey(Schema.Boolean),
  arrayValue: Schema.optionalKey(Schema.Struct({
    values: Schema.optionalKey(Schema.Array(Schema.suspend((): Schema.Codec<AnyValue, AnyValueEncoded> => AnyValue)))
  }))
})

const KeyValue = Schema.Struct({ key: Schema.String, value: AnyValue })
const Attributes = Schema.Array(KeyValue)

const Resource = Schema.Struct({ attributes: Attributes })
const InstrumentationScope = Schema.Struct({ name: Schema.String, version: Schema.optionalKey(Schema.String) })

const Span = Schema.Struct({
  traceId: Hex(16),
  spanId: Hex(8),
  parentSpanId: Schema.optionalKey(Schema.Union([Hex(8), Schema.Literal("")])),
  name: Schema.String,
  kind: Schema.Number,
  startTimeUnixNano: Int64,
  endTimeUnixNano: Int64,
  attributes: Attributes,
  events: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, timeUnixNano: Int64, attributes: Attributes }))),
  status: Schema.Struct({ code: Schema.Number, message: Schema.optionalKey(Schema.String) })
})
export type Span = typeof Span.Type

/** `ExportTraceServiceRequest`. */
export const TracesRequest = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({
    resource: Resource,
    scopeSpans: Schema.Array(Schema.Struct({ scope: InstrumentationScope, spans: Schema.Array(Span) }))
  }))
})

const NumberPoint = Schema.Struct({
  attributes: Attributes,
  asDouble: Schema.optionalKey(Int64),
  asInt: Schema.optionalKey(Int64)
})
const HistogramPoint = Schema.Struct({
  attributes: Attributes,
  count: Int64,
  sum: Schema.optionalKey(Schema.Number),
  bucketCounts: Schema.Array(Int64),
  explicitBounds: Schema.Array(Schema.Number)
})
const Metric = Schema.Struct({
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  unit: Schema.optionalKey(Schema.String),
  sum: Schema.optionalKey(Schema.Struct({
    dataPoints: Schema.Array(NumberPoint),
    aggregationTemporality: Schema.Number,
    isMonotonic: Schema.optionalKey(Schema.Boolean)
  })),
  gauge: Schema.optionalKey(Schema.Struct({ dataPoints: Schema.Array(NumberPoint) })),
  histogram: Schema.optionalKey(Schema.Struct({
    dataPoints: Schema.Array(HistogramPoint),
    aggregationTemporality: Schema.Number
  })),
  summary: Schema.optionalKey(Schema.Struct({ dataPoints: Schema.Array(Schema.Unknown) }))
})
export type Metric = typeof Metric.Type

/** `ExportMetricsServiceRequest`. */
export const MetricsRequest = Schema.Struct({
  resourceMetrics: Schema.Array(Schema.Struct({
    resource: Resource,
    scopeMetrics: Schema.Array(Schema.Struct({ scope: InstrumentationScope, metrics: Schema.Array(Metric) }))
  }))
})

/** `ExportLogsServiceRequest`: kept, not looked into. */
const LogsRequest = Schema.Struct({ resourceLogs: Schema.Array(Schema.Unknown) })

export interface Receiver {
  /** `http://127.0.0.1:<port>`: the `baseUrl` of an OTLP exporter. */
  readonly baseUrl: string
  readonly traces: ReadonlyArray<typeof TracesRequest.Type>
  readonly metrics: ReadonlyArray<typeof MetricsRequest.Type>
  readonly logs: number
  /** The requests refused, each as `<status> <method> <path>: <why>`. */
  readonly refused: ReadonlyArray<string>
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const answer = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(body)
}

/** Starts the receiver in the scope (port 0: the system picks a free one); it closes with the scope. */
export const receiver: Effect.Effect<Receiver, never, Scope.Scope> = Effect.acquireRelease(
  Effect.callback<{ readonly receiver: Receiver; readonly close: () => Promise<void> }>((resume) => {
    const traces: Array<typeof TracesRequest.Type> = []
    const metrics: Array<typeof MetricsRequest.Type> = []
    const refused: Array<string> = []
    let logs = 0
    const paths: Record<string, (json: unknown) => string | undefined> = {
      "/v1/traces": (json) => {
        const exit = Schema.decodeUnknownExit(TracesRequest)(json)
        if (Exit.isFailure(exit)) return String(exit.cause)
        traces.push(exit.value)
        return undefined
      },
      "/v1/metrics": (json) => {
        const exit = Schema.decodeUnknownExit(MetricsRequest)(json)
        if (Exit.isFailure(exit)) return String(exit.cause)
        metrics.push(exit.value)
        return undefined
      },
      "/v1/logs": (json) => {
        const exit = Schema.decodeUnknownExit(LogsRequest)(json)
        if (Exit.isFailure(exit)) return String(exit.cause)
        logs++
        return undefined
      }
    }
    const server = createServer((request, response) => {
      const path = request.url ?? ""
      const refuse = (status: number, why: string) => {
        refused.push(`${status} ${request.method} ${path}: ${why}`)
        answer(response, status, JSON.stringify({ code: status, message: why }))
      }
      const decode = paths[path]
      if (decode === undefined) return refuse(404, "no such endpoint")
      if (request.method !== "POST") return refuse(405, "POST only")
      const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim()
      if (type !== "application/json") return refuse(415, `content-type ${type}`)
      readBody(request).then(
        (text) => {
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            return refuse(400, "not JSON")
          }
          const problem = decode(json)
          if (problem !== undefined) return refuse(400, problem)
          // The empty Export…ServiceResponse: no partial success, everything accepted.
          answer(response, 200, "{}")
        },
        (error) => refuse(400, String(error))
      )
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        receiver: {
          baseUrl: `http://127.0.0.1:${port}`,
          traces,
          metrics,
          refused,
          get logs() {
            return logs
          }
        },
        close: () => new Promise<void>((done) => server.close(() => done()))
      }))
    })
  }),
  ({ close }) => Effect.promise(close)
).pipe(Effect.map(({ receiver }) => receiver))

/** Every span received, across requests. */
export const spansOf = (receiver: Receiver): Array<Span> =>
  receiver.traces.flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)))

/** Every metric received, across requests. */
export const metricsOf = (receiver: Receiver): Array<Metric> =>
  receiver.metrics.flatMap((r) => r.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics)))

/** A span's attributes as a plain record: strings, numbers, booleans. */
export const attributesOf = (attributes: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }>) =>
  Object.fromEntries(attributes.map(({ key, value }) => [
    key,
    value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue ??
      value.arrayValue?.values?.map((v) => v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue)
  ]))
