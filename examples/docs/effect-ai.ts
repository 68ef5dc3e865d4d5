import { KernelLanguageModel, LanguageModelProvider, SingleRequest } from "@agent-kernel/ai"
import * as ToolkitProvider from "@agent-kernel/ai/ToolkitProvider"
import { Session, Settings } from "@agent-kernel/kernel"
import { Anthropic, Transport } from "@agent-kernel/providers"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

// 1. An effect/ai LanguageModel (here agent-kernel's Anthropic provider as
//    one). Its HttpClient is built on SingleRequest.layer: whatever retry
//    sits above the HttpClient, one kernel attempt sends one request, so the
//    kernel is the only retry layer. provideMerge keeps the guard's proof,
//    SingleRequest.Guarded, which the adapter requires: without the guard,
//    step 2 does not compile.
const languageModel = (baseUrl: string, apiKey: Redacted.Redacted) =>
  KernelLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
    Layer.provide(Anthropic.layer({ apiKey, baseUrl })),
    Layer.provide(Transport.layerHttpClient),
    Layer.provideMerge(SingleRequest.layer.pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )

// 2. The kernel's ModelProvider from it. `configure` sends each request's
//    model (so fallback_models switch models) and output limit.
const modelProvider = (baseUrl: string, apiKey: Redacted.Redacted) =>
  LanguageModelProvider.layer({ name: "anthropic", configure: KernelLanguageModel.configure }).pipe(
    Layer.provide(languageModel(baseUrl, apiKey))
  )

// 3. An effect/ai Toolkit as the kernel's tools: a failing handler becomes
//    an error tool_result, behind the same gate, timeout and breaker as any plugin.
class UnknownWord extends Schema.TaggedError<UnknownWord>()("UnknownWord", { word: Schema.String }) {}

const Define = Tool.make("define", {
  description: "Defines an English word",
  parameters: Schema.Struct({ word: Schema.String }),
  success: Schema.String,
  failure: UnknownWord
})
const Dictionary = Toolkit.make(Define)

const tools = ToolkitProvider.layerToolbox("dictionary", Dictionary).pipe(
  Layer.provide(
    Dictionary.toLayer({
      define: ({ word }) =>
        word === "serendipity"
          ? Effect.succeed("finding something good by chance")
          : Effect.fail(new UnknownWord({ word }))
    })
  )
)

// 4. A session: the kernel's retry policy, budget, fallback chain and
//    context reduction now apply to the effect/ai model.
export const ask = (question: string, baseUrl: string, apiKey: Redacted.Redacted) =>
  Effect.gen(function* () {
    const settings = yield* Settings.decode({ fallback_models: ["claude-haiku-4-5"] })
    const session = yield* Session.make({ model: "claude-sonnet-4-5", settings })
    return yield* session.run(question)
  }).pipe(Effect.provide(Layer.merge(modelProvider(baseUrl, apiKey), tools)))
