/**
 * The API key never appears in an error (message, details, encoded form), an
 * event or a log line, even when a server echoes it back.
 */
import { describe, expect, it } from "@effect/vitest"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Formatter from "effect/Formatter"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as NodeUtil from "node:util"
import { FaultPlan } from "../src/testing/index.js"
import { apis, expectNoKeySlice, failure, KEY, providerAt, setup } from "./support.js"

const everyRendering = (error: ModelError.ModelError): ReadonlyArray<string> => [
  error.message,
  JSON.stringify(error),
  JSON.stringify(Schema.encodeSync(ModelError.ModelError)(error)),
  String(error),
  NodeUtil.inspect(error, { depth: 10 }),
  Formatter.format(error)
]

describe.each(apis)("the key never leaks (%s)", (api) => {
  it.effect("from an error body that echoes it", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "error", status: 401, error_type: "authentication_error", echo_key: true }])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("AuthError")
      expect(error.message).toContain("<redacted>")
      for (const text of everyRendering(error)) expectNoKeySlice(text)
    })
  )

  it.effect("from a mid-stream error that echoes it", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          {
            kind: "raw",
            status: 200,
            headers: { "content-type": "text/event-stream", "x-echo": KEY },
            body:
              api === "anthropic"
                ? `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message: `bad key ${KEY}` } })}\n\n`
                : `data: ${JSON.stringify({ error: { type: "server_error", message: `bad key ${KEY}` } })}\n\n`
          }
        ])
      )
      const error = yield* failure(provider)
      expect(error.midStream).toBe(true)
      for (const text of everyRendering(error)) expectNoKeySlice(text)
    })
  )

  it.effect("from a malformed body that contains it", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "raw", status: 200, headers: { "content-type": "application/json" }, body: `oops ${KEY}` }
        ]),
        { stream: false }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      for (const text of everyRendering(error)) expectNoKeySlice(text)
    })
  )

  it.effect("from a transport error", () =>
    Effect.gen(function* () {
      const provider = yield* providerAt(api, "http://127.0.0.1:1")
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
      for (const text of everyRendering(error)) expectNoKeySlice(text)
    })
  )

  // The body excerpts are cut at 2,000 characters (a malformed body, a non-JSON error body) and
  // 200 (the note about an unparseable error body): a key crossing a cut must be scrubbed first.
  it.effect.each([
    { name: "a malformed 200 body cut at 2,000 characters", status: 200, cut: 2_000 },
    { name: "a non-JSON error body cut at 2,000 characters", status: 500, cut: 2_000 },
    { name: "a non-JSON error body, its note cut at 200 characters", status: 500, cut: 200 }
  ])("from $name, with the key across the cut", ({ status, cut }) =>
    Effect.gen(function* () {
      // The note starts with "unparseable body: ", so the body itself is what is cut at `cut`.
      for (const before of [cut - KEY.length + 1, cut - 20, cut - 8, cut - 1]) {
        const body = `${"x".repeat(before)}${KEY} and more text after it`
        const { provider } = yield* setup(
          api,
          FaultPlan.make([{ kind: "raw", status, headers: { "content-type": "application/json" }, body }]),
          { stream: false }
        )
        const error = yield* failure(provider)
        for (const text of everyRendering(error)) expectNoKeySlice(text)
      }
    })
  )

  it.effect("in logs at every level", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const logger = Logger.make((options) => {
        lines.push(NodeUtil.inspect(options.message, { depth: 10 }))
        lines.push(NodeUtil.inspect(options.fiber.getRef(References.CurrentLogAnnotations), { depth: 10 }))
      })
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          {
            kind: "error",
            status: 429,
            error_type: "rate_limit_error",
            echo_key: true,
            headers: { "retry-after": "junk" }
          }
        ])
      )
      const error = yield* failure(provider).pipe(
        Effect.tap((e) => Effect.logError("provider failed", e)),
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
      expect(error._tag).toBe("RateLimited")
      // The debug note about the unusable retry-after, and the error we logged.
      expect(lines.some((line) => line.includes("junk"))).toBe(true)
      expect(lines.some((line) => line.includes("RateLimited"))).toBe(true)
      for (const line of lines) expectNoKeySlice(line)
    })
  )

  it.effect("to the server: the key travels only in its header", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup(api, FaultPlan.make([{ kind: "reply" }]))
      yield* ModelProvider.generate(provider, { model: "m", messages: [], tools: [] })
      const [recorded] = yield* server.requests
      expect(JSON.stringify(recorded)).not.toContain(KEY)
    })
  )
})
