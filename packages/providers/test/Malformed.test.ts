/**
 * Input that cannot be understood becomes a typed ModelError: never a defect,
 * never an unhandled rejection.
 */
import { describe, expect, it } from "@effect/vitest"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as NodeNet from "node:net"
import type * as Scope from "effect/Scope"
import { FaultPlan } from "../src/testing/index.js"
import { apis, failOnUnhandledRejections, failure, providerAt, setup } from "./support.js"

failOnUnhandledRejections()

const sse = (...events: ReadonlyArray<readonly [string, string]>) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join("")

/** A raw TCP server that answers every connection with `bytes` and then closes (or resets). */
const rawServer = (bytes: string, end: "close" | "reset"): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<NodeNet.Server>((resolve) => {
          const server = NodeNet.createServer((socket) => {
            socket.once("data", () => {
              socket.write(bytes, () => {
                if (end === "close") socket.end()
                else socket.resetAndDestroy()
              })
            })
          })
          server.listen(0, "127.0.0.1", () => resolve(server))
        })
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(
    Effect.map((server) => {
      const address = server.address()
      return typeof address === "object" && address !== null ? address.port : 0
    })
  )

describe.each(apis)("malformed responses (%s)", (api) => {
  const json = { "content-type": "application/json" }
  const eventStream = { "content-type": "text/event-stream" }

  it.effect("200 with a body that is not JSON -> unknown", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "raw", status: 200, headers: json, body: "<html>oops" }]),
        {
          stream: false
        }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.status).toBe(200)
      expect(error.message).toContain("not JSON")
    })
  )

  it.effect("200 JSON of the wrong shape -> unknown", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "raw", status: 200, headers: json, body: '{"hello":"world","choices":[]}' }]),
        { stream: false }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.message).toContain("unexpected shape")
    })
  )

  it.effect("a 5xx HTML page -> server_error, classified on the status", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "raw", status: 502, headers: { "content-type": "text/html" }, body: "<h1>Bad gateway</h1>" }
        ])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("ServerError")
      expect(error.status).toBe(502)
      expect(error.details?.["body"]).toBe("<h1>Bad gateway</h1>")
    })
  )

  it.effect("a 429 whose body is not JSON is still rate_limited", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "raw", status: 429, headers: { "retry-after": "1" }, body: "Too Many Requests" }])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("RateLimited")
    })
  )

  it.effect("a stream that ends cleanly before it finishes (truncated) -> connection_error, midStream", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "truncate", text: "half an ans" }]))
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
      expect(error.midStream).toBe(true)
      expect(error.details?.["reason"]).toBe("truncated")
      expect(ModelError.isRetryable(error)).toBe(true)
    })
  )

  it.effect("[DONE] without a finish_reason (OpenAI), or message_stop never sent (Anthropic) -> connection_error", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "truncate", text: "half an ans", done: true }]))
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
      expect(error.midStream).toBe(true)
      expect(error.message).toContain(api === "openai" ? "[DONE] without a finish_reason" : "before message_stop")
    })
  )

  it.effect("a JSON body cut in half -> unknown", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "truncate", text: "half" }]), { stream: false })
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.message).toContain("not JSON")
    })
  )

  it.effect("a body over the size limit -> unknown", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "oversize", bytes: 200_000 }]), {
        stream: false,
        maxBodyBytes: 10_000
      })
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.details?.["limit_bytes"]).toBe(10_000)
    })
  )

  it.effect("an error body over the size limit of a 5xx -> server_error", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "raw", status: 500, body: "x".repeat(50_000) }]), {
        maxBodyBytes: 10_000
      })
      const error = yield* failure(provider)
      expect(error._tag).toBe("ServerError")
      expect(error.message).toContain("byte limit")
    })
  )

  it.effect("one SSE event over the size limit -> unknown, midStream", () =>
    Effect.gen(function* () {
      const big = `data: ${"y".repeat(50_000)}`
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body: `${big}\n\n` }]),
        { maxBodyBytes: 10_000 }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.midStream).toBe(true)
      expect(error.message).toContain("byte limit")
    })
  )

  it.effect("keep-alives between events (pings, comments, empty events, an OpenAI `{}` chunk) are skipped", () =>
    Effect.gen(function* () {
      const body =
        api === "anthropic"
          ? [
              sse(["message_start", '{"type":"message_start","message":{"model":"m","usage":{"input_tokens":3}}}']),
              ": keep-alive\n\n",
              sse(["ping", '{"type":"ping"}']),
              sse([
                "content_block_start",
                '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'
              ]),
              "data:\n\n",
              sse([
                "content_block_delta",
                '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}'
              ]),
              sse([
                "message_delta",
                '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}'
              ]),
              sse(["message_stop", '{"type":"message_stop"}'])
            ].join("")
          : [
              'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
              "data: {}\n\n",
              ": keep-alive\n\n",
              "data:\n\n",
              'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
              "data: [DONE]\n\n"
            ].join("")
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body }]))
      const response = yield* ModelProvider.generate(provider, { model: "m", messages: [], tools: [] })
      expect(response.content).toEqual([{ type: "text", text: "hi" }])
      expect(response.stop_reason).toBe("end_turn")
    })
  )

  it.effect("an SSE event that is not JSON -> unknown, midStream", () =>
    Effect.gen(function* () {
      const body = api === "anthropic" ? sse(["message_start", "{not json"]) : "data: {not json\n\n"
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body }]))
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.midStream).toBe(true)
      expect(error.message).toContain("not JSON")
    })
  )

  it.effect("an SSE event of the wrong shape -> unknown, midStream", () =>
    Effect.gen(function* () {
      const body =
        api === "anthropic"
          ? sse(["content_block_delta", '{"type":"content_block_delta","index":"zero"}'])
          : 'data: {"choices":"nope"}\n\n'
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body }]))
      const error = yield* failure(provider)
      expect(error._tag).toBe("Unknown")
      expect(error.midStream).toBe(true)
    })
  )

  it.effect("a JSON body cut short: unknown on a 200, server_error on a 503", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "raw", status: 200, headers: json, body: '{"trunc' },
          { kind: "raw", status: 503, body: '{"trunc' }
        ])
      )
      const ok200 = yield* failure(provider)
      expect(ok200._tag).toBe("Unknown")
      const e503 = yield* failure(provider)
      expect(e503._tag).toBe("ServerError")
    })
  )

  it.effect("a response that is not HTTP at all -> connection_error, not a defect", () =>
    Effect.gen(function* () {
      const port = yield* rawServer("SSH-2.0-OpenSSH_9.6\r\n\r\n", "close")
      const provider = yield* providerAt(
        api,
        api === "anthropic" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`
      )
      const exit = yield* Effect.exit(ModelProvider.generate(provider, { model: "m", messages: [], tools: [] }))
      expect(Exit.isFailure(exit) && exit.cause.reasons.map((reason) => reason._tag)).toEqual(["Fail"])
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
    })
  )

  it.effect("a body shorter than its content-length, then a close -> connection_error, not a defect", () =>
    Effect.gen(function* () {
      const port = yield* rawServer(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"id":"msg',
        "reset"
      )
      const provider = yield* providerAt(
        api,
        api === "anthropic" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
        {
          stream: false
        }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
    })
  )
})
