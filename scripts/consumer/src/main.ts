/**
 * A consumer of the packed packages, as an app would write it: a Session
 * built from the packages' Layers, one run against the fake provider over
 * HTTP with a real MCP plugin process, one run over the fetch HttpClient
 * (no Node transport), one through @agent-kernel/ai's adapter around an
 * effect/ai `LanguageModel` (made with effect/ai's own `LanguageModel.make`,
 * answering from memory), and one effect/ai `LanguageModel.generateText`
 * through the kernel's Anthropic provider as a `LanguageModel` in one Layer.
 * It prints one line a run; the consumer check expects each to end
 * `completed`.
 *
 * The check runs it with plain node after compiling it with strict flags.
 */
import { AnthropicLanguageModel, LanguageModelProvider, SingleRequest } from "@agent-kernel/ai"
import { Session } from "@agent-kernel/kernel"
import { McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import { Anthropic, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as path from "node:path"

const app = path.resolve(import.meta.dirname, "..")

// The model lists the app's folder through the plugin, then answers.
const plan = FaultPlan.make([
  { kind: "reply", tool_calls: [{ name: "list_files", input: {} }], stop: "tool_use" },
  { kind: "reply", text: "The app holds its sources and the plugin.", stop: "end_turn" },
  { kind: "reply", text: "Hello over fetch.", stop: "end_turn" },
  { kind: "reply", text: "Hello from effect/ai.", stop: "end_turn" }
])

const ToolsLive = PluginToolbox.layer({
  providers: [McpStdio.make({ name: "workspace", command: process.execPath, args: ["workspace.mjs"], cwd: app })]
}).pipe(Layer.provide(NodeServices.layer))

const runOnce = (input: string) =>
  Effect.flatMap(Session.make({ model: "fake-model" }), (session) => session.run(input))

const program = Effect.gen(function* () {
  const server = yield* FakeProvider.make(plan)
  const apiKey = Redacted.make("consumer-check-key")

  const ModelLive = Anthropic.layer({ apiKey, baseUrl: server.url }).pipe(Layer.provide(NodeTransport.layer()))
  const withTools = yield* runOnce("What is in this folder?").pipe(Effect.provide(Layer.merge(ModelLive, ToolsLive)))
  const results = withTools.history.flatMap((message) =>
    message.content.flatMap((block) => (block.type === "tool_result" ? [block] : []))
  )
  const listed = results.length === 1 && results[0]?.is_error === false && results[0].content.includes("workspace.mjs")
  console.log(
    `node transport + MCP plugin: ${withTools.status}${listed ? "" : " (but list_files did not list the app)"}`
  )

  const FetchModelLive = Anthropic.layer({ apiKey, baseUrl: server.url }).pipe(
    Layer.provide(Transport.layerHttpClient),
    Layer.provide(FetchHttpClient.layer)
  )
  const overFetch = yield* runOnce("Hello").pipe(Effect.provide(FetchModelLive))
  console.log(`fetch transport: ${overFetch.status}`)

  // No HTTP, so the guard's proof is layerNoHttp: there is no request to keep single.
  const EffectAiLive = LanguageModelProvider.layer({ name: "effect-ai" }).pipe(
    Layer.provide(
      Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () =>
            Effect.succeed([
              { type: "text", text: "Hello from memory." },
              { type: "finish", reason: "stop", usage: { inputTokens: { total: 3 }, outputTokens: { total: 5 } } }
            ]),
          // The adapter calls streamText: the same answer as parts.
          streamText: () =>
            Stream.make(
              { type: "text-start" as const, id: "t" },
              { type: "text-delta" as const, id: "t", delta: "Hello from memory." },
              { type: "text-end" as const, id: "t" },
              {
                type: "finish" as const,
                reason: "stop" as const,
                usage: { inputTokens: { total: 3 }, outputTokens: { total: 5 } }
              }
            )
        })
      )
    ),
    Layer.provide(SingleRequest.layerNoHttp)
  )
  const viaEffectAi = yield* runOnce("Hello").pipe(Effect.provide(EffectAiLive))
  const answered = viaEffectAi.final_text === "Hello from memory."
  console.log(`effect/ai adapter: ${viaEffectAi.status}${answered ? "" : " (but the answer was lost)"}`)

  // The other direction: effect/ai's own API over the kernel's Anthropic provider, from one Layer.
  const viaLanguageModel = yield* LanguageModel.generateText({ prompt: "Hello" }).pipe(
    Effect.provide(AnthropicLanguageModel.layer({ model: "fake-model", apiKey, baseUrl: server.url }))
  )
  const generated = viaLanguageModel.finishReason === "stop" && viaLanguageModel.text === "Hello from effect/ai."
  console.log(
    `effect/ai LanguageModel: ${generated ? "completed" : `${viaLanguageModel.finishReason} "${viaLanguageModel.text}"`}`
  )

  return withTools.status === "completed" && listed && overFetch.status === "completed" && answered && generated
})

Effect.runPromise(Effect.scoped(program)).then(
  (ok) => {
    process.exitCode = ok ? 0 : 1
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
