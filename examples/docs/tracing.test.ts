/**
 * The tracing guide's sample, run against the fake provider and a real OTLP/HTTP receiver on loopback: the
 * run's spans arrive with the GenAI names, the retry's decision and their parents, and the metrics with them.
 */
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Tracing from "./tracing.js"

interface OtlpSpan {
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

/** A receiver that keeps every request body, by path, until the scope closes. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ readonly server: http.Server; readonly bodies: Map<string, Array<string>> }>((resume) => {
    const bodies = new Map<string, Array<string>>()
    const server = http.createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        bodies.set(request.url ?? "", [...(bodies.get(request.url ?? "") ?? []), body])
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, bodies })))
  }),
  ({ server }) => Effect.sync(() => server.close())
)

/** OTEL_EXPORTER_OTLP_ENDPOINT for the scope, as the guide says to set it. */
const endpoint = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"]
      process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = url
      return before
    }),
    (before) =>
      Effect.sync(() => {
        if (before === undefined) delete process.env["OTEL_EXPORTER_OTLP_ENDPOINT"]
        else process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = before
      })
  )

describe("tracing-a-run sample", () => {
  it.effect("a run with a retry exports its span tree and the GenAI metrics over OTLP/HTTP", () =>
    Effect.gen(function* () {
      const { server, bodies } = yield* receiver
      yield* endpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      const provider = yield* FakeProvider.make(
        FaultPlan.make([
          { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "2" } },
          { kind: "happy" }
        ])
      )
      const outcome = yield* TestClockDriver.run(Tracing.ask("hello", provider.url, Redacted.make("sk-docs")), {
        horizon: "1 minute"
      })
      assert.strictEqual(outcome.status, "completed")
      const spans = (bodies.get("/v1/traces") ?? []).flatMap((body) =>
        (
          JSON.parse(body) as {
            readonly resourceSpans: ReadonlyArray<{
              readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
            }>
          }
        ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
      )
      const [root] = spans.filter((span) => span.name === "invoke_agent")
      const [turn] = spans.filter((span) => span.name === "agent_kernel.turn")
      assert.strictEqual(turn!.parentSpanId, root!.spanId)
      const children = spans.filter((span) => span.parentSpanId === turn!.spanId).map((span) => span.name)
      assert.deepStrictEqual(children.sort(), [
        "agent_kernel.retry",
        "chat claude-sonnet-4-5",
        "chat claude-sonnet-4-5"
      ])
      const calls = spans.filter((span) => span.name === "chat claude-sonnet-4-5")
      assert.deepInclude(
        calls.flatMap((span) => span.attributes),
        { key: "error.type", value: { stringValue: "rate_limited" } }
      )
      assert.deepInclude(
        calls.flatMap((span) => span.attributes),
        { key: "gen_ai.provider.name", value: { stringValue: "anthropic" } }
      )
      const metrics = (bodies.get("/v1/metrics") ?? []).join("\n")
      assert.include(metrics, '"name":"gen_ai.client.token.usage"')
      assert.include(metrics, '"name":"gen_ai.client.operation.duration"')
    })
  )
})
