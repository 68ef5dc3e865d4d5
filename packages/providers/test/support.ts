/**
 * Shared helpers for the providers tests: a provider pointed at a fake server
 * over real sockets, and a way to step `TestClock` while I/O is in flight.
 */
import { Content, type ModelError, ModelProvider } from "@agent-kernel/kernel"
import { afterAll, beforeAll, expect } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import { Anthropic, OpenAi, type Timeouts, Transport } from "../src/index.js"
import { FakeProvider, type FaultPlan } from "../src/testing/index.js"
import { NodeTransport } from "../src/node/index.js"

export const KEY = "sk-test-Sup3rSecretKey-0123456789abcdef"

/**
 * The first 8-character slice of `key` that `text` contains, if any: a part
 * of a key is a leak too (a key cut in two by a truncation no longer matches
 * a scrub of the whole key).
 */
export const leakedSlice = (text: string, key: string = KEY, width = 8): string | undefined => {
  for (let at = 0; at + width <= key.length; at++) {
    const slice = key.slice(at, at + width)
    if (text.includes(slice)) return slice
  }
  return undefined
}

/** Fails when `text` holds any 8-character slice of the key. */
export const expectNoKeySlice = (text: string, key: string = KEY): void => {
  expect(leakedSlice(text, key), `a slice of the key leaked into: ${text.slice(0, 300)}`).toBeUndefined()
}

export type Api = "anthropic" | "openai"

export const apis: ReadonlyArray<Api> = ["anthropic", "openai"]

export interface Setup {
  readonly server: FakeProvider.FakeProvider
  readonly provider: ModelProvider.Service
}

export interface SetupOptions {
  readonly stream?: boolean
  readonly timeouts?: Timeouts.Options
  readonly maxBodyBytes?: number
  readonly transport?: NodeTransport.Options
  readonly baseUrl?: string
}

/** A provider of the given API, talking to `baseUrl` over a fresh Node transport. */
export const providerAt = (
  api: Api,
  baseUrl: string,
  options?: SetupOptions
): Effect.Effect<ModelProvider.Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const transport = yield* NodeTransport.make(options?.transport)
    const common = {
      apiKey: Redacted.make(KEY),
      stream: options?.stream ?? true,
      timeouts: options?.timeouts,
      maxBodyBytes: options?.maxBodyBytes
    }
    const make = api === "anthropic" ? Anthropic.make({ ...common, baseUrl }) : OpenAi.make({ ...common, baseUrl })
    return yield* make.pipe(Effect.provideService(Transport.Transport, transport), Effect.orDie)
  })

/** Starts a fake server with `plan` and a provider of `api` pointed at it. */
export const setup = (
  api: Api,
  plan: FaultPlan.FaultPlan,
  options?: SetupOptions
): Effect.Effect<Setup, never, Scope.Scope> =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(FakeProvider.make(plan))
    const baseUrl = options?.baseUrl ?? (api === "anthropic" ? server.url : server.openAiBaseUrl)
    const provider = yield* providerAt(api, baseUrl, options)
    return { server, provider }
  })

export const tool: ModelProvider.ToolDefinition = {
  name: "lookup",
  description: "Looks a word up",
  input_schema: {
    type: "object",
    properties: { word: { type: "string" }, limit: { type: "integer" } },
    required: ["word", "limit"]
  }
}

export const request = (overrides?: Partial<ModelProvider.ModelRequest>): ModelProvider.ModelRequest => ({
  model: "test-model",
  messages: [Content.userText("hello")],
  tools: [],
  ...overrides
})

/** Runs one call expecting a failure, and returns the error. */
export const failure = (
  provider: ModelProvider.Service,
  req: ModelProvider.ModelRequest = request()
): Effect.Effect<ModelError.ModelError> =>
  ModelProvider.generate(provider, req).pipe(
    Effect.flatMap((response) => Effect.die(new Error(`expected a failure, got ${JSON.stringify(response)}`))),
    Effect.flip
  )

/** Lets real I/O callbacks run (not a timing device: it never waits on the clock). */
export const ioTick: Effect.Effect<void> = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/**
 * Advances `TestClock` by `step` repeatedly, letting I/O run between steps,
 * until the fiber finishes. Returns its exit and how many steps it took.
 */
export const adjustUntilDone = <A, E>(fiber: Fiber.Fiber<A, E>, step: Duration.Input, maxSteps = 40) =>
  Effect.gen(function* () {
    for (let steps = 0; steps < maxSteps; steps++) {
      // Give the in-flight request time to reach the point where it waits.
      for (let i = 0; i < 5; i++) yield* ioTick
      const polled = fiber.pollUnsafe()
      if (polled !== undefined) return { exit: polled, steps }
      yield* TestClock.adjust(step)
    }
    return yield* Effect.die(new Error(`fiber still running after ${maxSteps} clock steps`))
  })

/** Fails the test file if any promise rejection went unhandled while it ran. */
export const failOnUnhandledRejections = (): void => {
  const rejections: Array<unknown> = []
  const onRejection = (reason: unknown) => rejections.push(reason)
  beforeAll(() => {
    process.on("unhandledRejection", onRejection)
  })
  afterAll(() => {
    process.off("unhandledRejection", onRejection)
    expect(rejections).toEqual([])
  })
}
