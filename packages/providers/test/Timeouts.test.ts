/**
 * The three timeouts, driven by TestClock while the request really is in
 * flight on a socket. Nothing here sleeps in real time: the test waits on I/O
 * events (a DNS lookup starting, the server receiving the request) and then
 * moves the clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/testing/TestClock"
import * as NodeNet from "node:net"
import { Anthropic, Transport } from "../src/index.js"
import { FakeProvider, FaultPlan } from "../src/testing/index.js"
import { adjustUntilDone, apis, failure, ioTick, KEY, providerAt, request, setup } from "./support.js"

const timeouts = { connect: "1 second", firstByte: "2 seconds", idle: "3 seconds" } as const

const settle = Effect.repeat(ioTick, { times: 10 })

const stillRunning = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.gen(function* () {
    yield* settle
    expect(fiber.pollUnsafe()).toBeUndefined()
  })

/** Moves the clock `millis` on: the call must still run 1 ms before, and end then; returns how it ended. */
const endsAfter = <A, E>(fiber: Fiber.Fiber<A, E>, millis: number) =>
  Effect.gen(function* () {
    yield* TestClock.adjust(Duration.millis(millis - 1))
    yield* stillRunning(fiber)
    yield* TestClock.adjust("1 millis")
    const { exit } = yield* adjustUntilDone(fiber, "1 millis", 3)
    return yield* exit
  })

/**
 * Starts a call, lets `beats` one-second keep-alives reach it, and checks that
 * it ends exactly at the 3 s idle bound counted from the headers.
 */
const cutAtIdleBound = (server: FakeProvider.FakeProvider, provider: ModelProvider.Service, beats: number) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(failure(provider))
    yield* server.awaitRequests(1)
    yield* settle
    for (let i = 0; i < beats; i++) {
      yield* TestClock.adjust("1 second")
      yield* settle
    }
    const error = yield* endsAfter(fiber, 3000 - 1000 * beats)
    expect(error._tag).toBe("Timeout")
    expect(error.details?.["phase"]).toBe("idle")
    return error
  })

/** The session's call timeouts, as a session provides them from its settings. */
const sessionTimeouts: ModelProvider.CallTimeouts = {
  connect: Duration.seconds(1),
  firstByte: Duration.seconds(2),
  idle: Duration.seconds(3),
  attempt: Duration.minutes(10)
}

describe.each(apis)("timeouts (%s)", (api) => {
  it.effect("connect: fires at exactly the connect timeout while DNS never answers", () =>
    Effect.gen(function* () {
      const lookupStarted = yield* Deferred.make<void>()
      const provider = yield* providerAt(api, api === "anthropic" ? "http://stalled.test" : "http://stalled.test/v1", {
        timeouts,
        transport: { lookup: () => Deferred.doneUnsafe(lookupStarted, Exit.void) }
      })
      const fiber = yield* Effect.forkChild(failure(provider))
      yield* Deferred.await(lookupStarted)
      const error = yield* endsAfter(fiber, 1000)
      expect(error._tag).toBe("Timeout")
      expect(error.details?.["phase"]).toBe("connect")
      expect(error.midStream).toBeUndefined()
    })
  )

  it.effect("first byte: fires at exactly the first-byte timeout when the server never answers", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "hang" }]), { timeouts })
      const fiber = yield* Effect.forkChild(failure(provider))
      yield* server.awaitRequests(1)
      yield* TestClock.adjust("1999 millis")
      yield* stillRunning(fiber)
      yield* TestClock.adjust("1 millis")
      const { exit } = yield* adjustUntilDone(fiber, "1 millis", 3)
      const error = yield* exit
      expect(error._tag).toBe("Timeout")
      expect(error.details?.["phase"]).toBe("first_byte")
    })
  )

  it.effect("first byte: a server delay shorter than the timeout is waited out", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "reply", text: "late but fine", delay_ms: 1500 }]),
        {
          timeouts
        }
      )
      const fiber = yield* Effect.forkChild(ModelProvider.generate(provider, request()))
      const { exit, steps } = yield* adjustUntilDone(fiber, "500 millis")
      const response = yield* exit
      expect(response.content).toEqual([{ type: "text", text: "late but fine" }])
      expect(steps).toBeGreaterThanOrEqual(3)
    })
  )

  it.effect("first byte: a server delay longer than the timeout times out", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "too late", delay_ms: 5000 }]), {
        timeouts
      })
      const fiber = yield* Effect.forkChild(failure(provider))
      const { exit } = yield* adjustUntilDone(fiber, "500 millis")
      const error = yield* exit
      expect(error._tag).toBe("Timeout")
      expect(error.details?.["phase"]).toBe("first_byte")
    })
  )

  it.effect("idle: a stream that goes silent times out mid-stream", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "stall", text: "partial text" }]), {
        timeouts
      })
      const fiber = yield* Effect.forkChild(failure(provider))
      yield* server.awaitRequests(1)
      yield* settle
      yield* TestClock.adjust("2999 millis")
      yield* stillRunning(fiber)
      const { exit } = yield* adjustUntilDone(fiber, "3 seconds")
      const error = yield* exit
      expect(error._tag).toBe("Timeout")
      expect(error.details?.["phase"]).toBe("idle")
      expect(error.midStream).toBe(true)
    })
  )

  it.effect.each(["ping", "comment", "empty", "empty_events"] as const)(
    "idle: keep-alives (%s) forever never restart the idle timer: a Timeout at the bound, mid-stream",
    (style) =>
      Effect.gen(function* () {
        const { server, provider } = yield* setup(
          api,
          FaultPlan.make([{ kind: "keepalive", text: "partial text", every_ms: 1000, style }]),
          { timeouts }
        )
        // Two keep-alives reach the client; the timer started with the headers keeps running.
        const error = yield* cutAtIdleBound(server, provider, 2)
        expect(error.midStream).toBe(true)
        expect(ModelError.isRetryable(error)).toBe(true)
      })
  )

  it.effect("idle: content keeps a slow stream alive; only its silence counts", () =>
    Effect.gen(function* () {
      // An event every 0.9 s. A ping, an empty block start and a block stop carry nothing, but never three in a
      // row: never 3 s without content, though the stream takes far longer.
      const text = "a slow answer, eight characters per delta, over many events"
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text, event_delay_ms: 900 }]), {
        timeouts
      })
      const fiber = yield* Effect.forkChild(ModelProvider.generate(provider, request()))
      const { exit, steps } = yield* adjustUntilDone(fiber, "700 millis", 60)
      expect((yield* exit).content).toEqual([{ type: "text", text }])
      expect(steps * 700).toBeGreaterThan(3 * 3000)
    })
  )

  it.effect("idle: headers, then not one byte of body -> Timeout at the bound, mid-stream", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "headers_only" }]), { timeouts })
      const error = yield* cutAtIdleBound(server, provider, 0)
      expect(error.midStream).toBe(true)
    })
  )

  it.effect("idle: a JSON body padded with whitespace forever times out at the bound", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "keepalive", every_ms: 1000 }]), {
        timeouts,
        stream: false
      })
      const error = yield* cutAtIdleBound(server, provider, 2)
      expect(error.midStream).toBeUndefined()
    })
  )

  it.effect("the session's call timeouts apply when the provider sets none", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "hang" }, { kind: "stall", text: "x" }]))
      const fiber = yield* Effect.forkChild(
        failure(provider).pipe(Effect.provideService(ModelProvider.CurrentCallTimeouts, sessionTimeouts))
      )
      yield* server.awaitRequests(1)
      expect((yield* endsAfter(fiber, 2000)).details).toMatchObject({ phase: "first_byte", timeout_ms: 2000 })
      const idle = yield* Effect.forkChild(
        failure(provider).pipe(Effect.provideService(ModelProvider.CurrentCallTimeouts, sessionTimeouts))
      )
      yield* server.awaitRequests(2)
      yield* settle
      const done = yield* adjustUntilDone(idle, "1 second", 5)
      expect(yield* done.exit).toMatchObject({ details: { phase: "idle", timeout_ms: 3000 } })
    })
  )

  it.effect("a provider's own timeouts option wins over the session's, field by field", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "hang" }]), {
        timeouts: { firstByte: "5 seconds" }
      })
      const fiber = yield* Effect.forkChild(
        failure(provider).pipe(Effect.provideService(ModelProvider.CurrentCallTimeouts, sessionTimeouts))
      )
      yield* server.awaitRequests(1)
      expect((yield* endsAfter(fiber, 5000)).details).toMatchObject({ phase: "first_byte", timeout_ms: 5000 })
    })
  )

  it.effect("idle: a non-streaming body that stops half-way times out", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "stall" }]), { timeouts, stream: false })
      const fiber = yield* Effect.forkChild(failure(provider))
      yield* server.awaitRequests(1)
      const { exit } = yield* adjustUntilDone(fiber, "3 seconds")
      const error = yield* exit
      expect(error._tag).toBe("Timeout")
      expect(error.details?.["phase"]).toBe("idle")
      expect(error.midStream).toBeUndefined()
    })
  )
})

it.effect("a timed-out call releases its connection: the next call on the same provider succeeds", () =>
  Effect.gen(function* () {
    const { server, provider } = yield* setup(
      "anthropic",
      FaultPlan.make([{ kind: "hang" }, { kind: "reply", text: "second" }]),
      { timeouts }
    )
    const first = yield* Effect.forkChild(failure(provider))
    yield* server.awaitRequests(1)
    const { exit } = yield* adjustUntilDone(first, "2 seconds")
    expect((yield* exit)._tag).toBe("Timeout")
    const second = yield* Effect.forkChild(ModelProvider.generate(provider, request()))
    const done = yield* adjustUntilDone(second, "100 millis")
    expect((yield* done.exit).content).toEqual([{ type: "text", text: "second" }])
    yield* Fiber.interrupt(second)
  })
)

it.effect("Transport.layerHttpClient over fetch: calls work, and the first-byte timeout also covers connecting", () =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(
      FakeProvider.make(FaultPlan.make([{ kind: "reply", text: "via fetch" }, { kind: "hang" }]))
    )
    const context = yield* Layer.build(Transport.layerHttpClient.pipe(Layer.provide(FetchHttpClient.layer)))
    const transport = Context.get(context, Transport.Transport)
    expect(transport.tracksConnect).toBe(false)
    const provider = yield* Anthropic.make({ apiKey: Redacted.make(KEY), baseUrl: server.url, timeouts }).pipe(
      Effect.provideService(Transport.Transport, transport),
      Effect.orDie
    )
    const response = yield* ModelProvider.generate(provider, request())
    expect(response.content).toEqual([{ type: "text", text: "via fetch" }])
    const fiber = yield* Effect.forkChild(failure(provider))
    yield* server.awaitRequests(2)
    const { exit } = yield* adjustUntilDone(fiber, "2 seconds")
    const error = yield* exit
    expect(error._tag).toBe("Timeout")
    expect(error.details?.["phase"]).toBe("first_byte")
  })
)

it.effect("connect covers the TLS handshake: a server that accepts TCP but never answers the ClientHello", () =>
  Effect.gen(function* () {
    const sawClientHello = yield* Deferred.make<void>()
    const silent = yield* Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<NodeNet.Server>((resolve) => {
            const server = NodeNet.createServer((socket) => {
              socket.once("data", () => Deferred.doneUnsafe(sawClientHello, Exit.void))
            })
            server.listen(0, "127.0.0.1", () => resolve(server))
          })
      ),
      (server) =>
        Effect.sync(() => {
          server.close()
        })
    )
    const address = silent.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const provider = yield* providerAt("anthropic", `https://127.0.0.1:${port}`, { timeouts })
    const fiber = yield* Effect.forkChild(failure(provider))
    yield* Deferred.await(sawClientHello)
    const error = yield* endsAfter(fiber, 1000)
    expect(error._tag).toBe("Timeout")
    expect(error.details?.["phase"]).toBe("connect")
  })
)
