/**
 * The real @effect/ai stacks the tests drive: @effect/ai-anthropic and
 * @effect/ai-openai clients over undici (real sockets) pointed at the kernel's
 * fake provider server, wrapped by the adapter, inside a kernel Session.
 */
import { LanguageModelProvider, SingleRequest } from "../src/index.js"
import { Content, type ModelProvider, type Settings, type Toolbox } from "@agent-kernel/kernel"
import { RecordedRun } from "@agent-kernel/kernel/testing"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import type { LanguageModel } from "@effect/ai"
import { AnthropicClient, AnthropicLanguageModel } from "@effect/ai-anthropic"
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"

export type Api = "anthropic" | "openai"

export const apis: ReadonlyArray<Api> = ["anthropic", "openai"]

export const KEY = "sk-test-Sup3rSecretKey-0123456789abcdef"

/**
 * How the user's client is built: always with what an @effect/ai user
 * typically adds for resilience, `HttpClient.retryTransient` on the client
 * (it re-sends 408, 429, 500, 502, 503, 504 and transport failures at
 * once), and on `SingleRequest.layer` unless `guarded` is `false`.
 */
export interface ClientOptions {
  readonly guarded?: boolean
}

const retryTransient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.retryTransient(client, { times: 3, schedule: Schedule.spaced("10 millis") })

/**
 * The client's HttpClient and the guard's proof the adapter requires. Unguarded, the proof is given while the
 * client sends through the bare platform client: the mistake the adapter must catch at run time.
 */
const httpClient = (options: ClientOptions): Layer.Layer<HttpClient.HttpClient | SingleRequest.Guarded> =>
  options.guarded === false
    ? Layer.merge(NodeHttpClient.layerUndici, Layer.succeed(SingleRequest.Guarded, { sendsHttp: true }))
    : SingleRequest.layer.pipe(Layer.provide(NodeHttpClient.layerUndici))

/** A `LanguageModel` of `api`, talking to the fake server (OpenAI over its Responses API dialect). */
export const languageModel = (
  api: Api,
  server: FakeProvider.FakeProvider,
  options: ClientOptions = {}
): Layer.Layer<LanguageModel.LanguageModel | HttpClient.HttpClient | SingleRequest.Guarded> => {
  if (api === "anthropic") {
    return AnthropicLanguageModel.layer({ model: "claude-test" }).pipe(
      Layer.provide(
        AnthropicClient.layer({ apiUrl: server.url, apiKey: Redacted.make(KEY), transformClient: retryTransient })
      ),
      Layer.provideMerge(httpClient(options))
    )
  }
  return OpenAiLanguageModel.layer({ model: "gpt-test", config: { strict: false } }).pipe(
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: server.openAiBaseUrl,
        apiKey: Redacted.make(KEY),
        transformClient: retryTransient
      })
    ),
    Layer.provideMerge(httpClient(options))
  )
}

/** The request's model and output limit, through each provider's config override. */
export const configure =
  (api: Api): LanguageModelProvider.Configure =>
  (request) =>
    api === "anthropic"
      ? AnthropicLanguageModel.withConfigOverride({
          model: request.model,
          ...(request.max_output_tokens !== undefined ? { max_tokens: request.max_output_tokens } : {})
        })
      : OpenAiLanguageModel.withConfigOverride({
          model: request.model,
          ...(request.max_output_tokens !== undefined ? { max_output_tokens: request.max_output_tokens } : {})
        })

/** The adapter over a fresh fake server following `plan`. */
export const setup = (api: Api, plan: FaultPlan.FaultPlan, options: ClientOptions = {}) =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(FakeProvider.make(plan))
    // Built in the test's scope: the client's sockets live as long as the provider is used.
    const model = yield* Layer.build(languageModel(api, server, options))
    const provider = yield* LanguageModelProvider.make({ name: api, configure: configure(api) }).pipe(
      Effect.provide(model)
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
 * driver only moves the clock to sleeps within ten minutes, and the
 * attempt timeout is set a day out, so real I/O never meets a spurious
 * timeout.
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
