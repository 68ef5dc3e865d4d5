/**
 * The stacks the tests drive, over real sockets to the kernel's fake
 * provider server on 127.0.0.1.
 *
 * effect/ai 4.1 has no working provider package (the 4.0 betas of
 * @effect/ai-anthropic and @effect/ai-openai import `effect/unstable/*`
 * paths that 4.1 does not have), so the effect/ai `LanguageModel` under the
 * adapter is the kernel's own Anthropic or OpenAI provider made one by
 * `KernelLanguageModel`, sending through an `HttpClient` built the way an
 * effect/ai user makes one resilient: `HttpClient.retryTransient` over
 * undici, and on `SingleRequest`'s guard unless `guarded` is `false`.
 */
import { KernelLanguageModel, LanguageModelProvider, SingleRequest } from "../src/index.js"
import { Content, type ModelProvider, type Settings, type Toolbox } from "@agent-kernel/kernel"
import { RecordedRun } from "@agent-kernel/kernel/testing"
import { Anthropic, OpenAi, Transport } from "@agent-kernel/providers"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"

export type Api = "anthropic" | "openai"

export const apis: ReadonlyArray<Api> = ["anthropic", "openai"]

export const KEY = "sk-test-Sup3rSecretKey-0123456789abcdef"

/** Whether the client's HttpClient is built on the guard (default) or, the mistake the adapter must catch, not. */
export interface ClientOptions {
  readonly guarded?: boolean
}

/** What an effect/ai user adds for resilience: it re-sends 408, 429, 5xx and transport failures. */
const retryTransient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.retryTransient(client, { times: 3, schedule: Schedule.spaced("10 millis") })

/**
 * The client's HttpClient and the guard's proof the adapter requires.
 * Unguarded, the proof is given while the client sends through the bare
 * platform client.
 */
const httpClient = (options: ClientOptions): Layer.Layer<HttpClient.HttpClient | SingleRequest.Guarded> =>
  Layer.merge(
    Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        retryTransient(options.guarded === false ? client : SingleRequest.guard(client))
      )
    ).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    Layer.succeed(SingleRequest.Guarded, { sendsHttp: true })
  )

/** Timeouts a day out: the driver moves TestClock past backoff waits, never past a request in flight. */
const timeouts = { connect: "1 day", firstByte: "1 day", idle: "1 day" } as const

/** The kernel provider of `api`, pointed at the fake server, on the transport in context. */
export const kernelProvider = (api: Api, server: FakeProvider.FakeProvider) =>
  api === "anthropic"
    ? Anthropic.layer({ apiKey: Redacted.make(KEY), baseUrl: server.url, timeouts })
    : OpenAi.layer({ apiKey: Redacted.make(KEY), baseUrl: server.openAiBaseUrl, timeouts })

/** The kernel providers' transport over undici, with no retry and no guard: how the kernel sends on its own. */
export const directTransport: Layer.Layer<Transport.Transport> = Transport.layerHttpClient.pipe(
  Layer.provide(NodeHttpClient.layerUndici)
)

/** A `LanguageModel` of `api`, talking to the fake server. */
export const languageModel = (
  api: Api,
  server: FakeProvider.FakeProvider,
  options: ClientOptions = {}
): Layer.Layer<LanguageModel.LanguageModel | HttpClient.HttpClient | SingleRequest.Guarded> =>
  KernelLanguageModel.layer({ model: api === "anthropic" ? "claude-test" : "gpt-test" }).pipe(
    Layer.provide(kernelProvider(api, server)),
    Layer.provide(Transport.layerHttpClient),
    Layer.provideMerge(httpClient(options)),
    Layer.orDie
  )

/** The request's model, output limit and options, through the model's config override. */
export const configure: LanguageModelProvider.Configure = KernelLanguageModel.configure

/** The adapter over a fresh fake server following `plan`. */
export const setup = (api: Api, plan: FaultPlan.FaultPlan, options: ClientOptions = {}) =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(FakeProvider.make(plan))
    // Built in the test's scope: the client's sockets live as long as the provider is used.
    const model = yield* Layer.build(languageModel(api, server, options))
    const provider = yield* LanguageModelProvider.make({ name: api, dialect: api, configure }).pipe(
      Effect.provideContext(model)
    )
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

export const lookupToolbox: Toolbox.Service = {
  definitions: Effect.succeed([tool]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `definition of ${JSON.stringify(call.input)}`))
}

/**
 * One kernel run through the adapter. Backoff sleeps run on TestClock; the
 * driver only moves the clock to sleeps within ten minutes, and every
 * timeout is set a day out, so real I/O never meets a spurious timeout.
 */
export const run = (
  api: Api,
  plan: FaultPlan.FaultPlan,
  options: ClientOptions & {
    readonly history?: Content.History
    readonly input?: string
    readonly settings?: Partial<Settings.Settings>
  } = {}
) =>
  Effect.gen(function* () {
    const { server, provider } = yield* setup(api, plan, options)
    const recorded = yield* RecordedRun.run(provider, {
      settings: { jitter: "none", model_attempt_timeout_ms: 86_400_000, ...options.settings },
      toolbox: lookupToolbox,
      history: options.history,
      input: options.input ?? "define serendipity",
      horizon: "10 minutes"
    })
    return { ...recorded, server }
  })

export const ofType = RecordedRun.ofType
