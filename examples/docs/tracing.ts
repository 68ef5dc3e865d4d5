import { Session } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

// 1. OpenTelemetry for the whole program. The OTLP/HTTP exporters read the
//    standard variables: OTEL_EXPORTER_OTLP_ENDPOINT (default
//    http://localhost:4318), OTEL_EXPORTER_OTLP_HEADERS; OTEL_SERVICE_NAME,
//    when set, names the service in place of the one given here. Closing the
//    layer flushes the last spans and metrics.
export const TelemetryLive = NodeSdk.layer(() => ({
  resource: { serviceName: "my-agent" },
  spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
  metricReader: new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })
}))

// 2. A session as usual: every run is an invoke_agent span, each model call a
//    `chat {model}` span with the GenAI attributes, each tool call an
//    `execute_tool {name}` span, each retry's wait an agent_kernel.retry span
//    carrying the decision. The kernel's metrics go out with them.
export const ask = (question: string, baseUrl: string, apiKey: Redacted.Redacted) =>
  Effect.gen(function* () {
    const session = yield* Session.make({ model: "claude-sonnet-4-5" })
    return yield* session.run(question)
  }).pipe(
    Effect.provide(Anthropic.layer({ apiKey, baseUrl }).pipe(Layer.provide(NodeTransport.layer()))),
    Effect.provide(TelemetryLive)
  )
