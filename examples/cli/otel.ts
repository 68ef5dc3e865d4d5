/**
 * `agent --otel`: the run's spans and the kernel's metrics, exported over
 * OTLP/HTTP (JSON) by @effect/opentelemetry's NodeSdk with the OpenTelemetry
 * SDK's OTLP exporters. They are configured the standard way, by the
 * environment: `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`),
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`.
 *
 * The packages are optional and loaded only here, when --otel is given: the
 * bundle leaves them out (scripts/build-cli.mjs marks them external), so a
 * command without --otel starts as fast as before, and an install without
 * them gets a clear usage error instead of a crash.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { UsageError } from "./usage.js"

/** The packages --otel loads, as their names appear in an install command. */
export const packages = [
  "@effect/opentelemetry",
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/exporter-metrics-otlp-http"
] as const

/** What a failed dynamic import says, for the usage error: a missing package by name, else the message. */
export const describeLoadFailure = (cause: unknown): string => {
  const message = cause instanceof Error ? cause.message : String(cause)
  const missing = /Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1]
  return missing === undefined ? message : `${missing} is not installed`
}

/** The usage error for a load failure. */
export const loadError = (cause: unknown): UsageError =>
  new UsageError({
    message: `--otel needs the optional OpenTelemetry packages (${describeLoadFailure(cause)}). Install them with: npm install ${packages.join(" ")}`
  })

/** Imports the exporters and builds the NodeSdk layer: spans through a batch processor, metrics on shutdown and every interval. */
export const layer = (env: NodeJS.ProcessEnv): Effect.Effect<Layer.Layer<never>, UsageError> =>
  Effect.gen(function* () {
    const [NodeSdk, TraceBase, SdkMetrics, TraceExporter, MetricExporter] = yield* Effect.tryPromise({
      try: () =>
        Promise.all([
          import("@effect/opentelemetry/NodeSdk"),
          import("@opentelemetry/sdk-trace-base"),
          import("@opentelemetry/sdk-metrics"),
          import("@opentelemetry/exporter-trace-otlp-http"),
          import("@opentelemetry/exporter-metrics-otlp-http")
        ]),
      catch: loadError
    })
    // Outside the bundle, @effect/opentelemetry loads effect from node_modules: a copy whose own default
    // registry is empty. It is handed the registry the kernel's metrics are kept in.
    const registry = yield* Metric.MetricRegistry
    return NodeSdk.layer(() => ({
      // OTEL_SERVICE_NAME, when set, names the service (the SDK reads it); this is the fallback.
      ...(env["OTEL_SERVICE_NAME"] ? {} : { resource: { serviceName: "agent-kernel-cli" } }),
      spanProcessor: new TraceBase.BatchSpanProcessor(new TraceExporter.OTLPTraceExporter()),
      metricReader: new SdkMetrics.PeriodicExportingMetricReader({
        exporter: new MetricExporter.OTLPMetricExporter()
      })
    })).pipe(Layer.provide(Layer.succeed(Metric.MetricRegistry, registry)))
  })
