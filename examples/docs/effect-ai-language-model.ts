import { AnthropicLanguageModel } from "@agent-kernel/ai"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

// 1. One Layer: agent-kernel's Anthropic provider as effect/ai's
//    LanguageModel, over fetch. The app needs nothing but `effect`.
const model = (baseUrl: string, apiKey: Redacted.Redacted) =>
  AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5", apiKey, baseUrl, config: { max_output_tokens: 1024 } })

// 2. effect/ai as usual: a toolkit and its handlers; the chat keeps the
//    conversation, tool calls and results included.
const Define = Tool.make("define", {
  description: "Defines an English word",
  parameters: Schema.Struct({ word: Schema.String }),
  success: Schema.String
})
const Dictionary = Toolkit.make(Define)
const DictionaryLive = Dictionary.toLayer({
  define: ({ word }) => Effect.succeed(`${word}: finding something good by chance`)
})

export const define = (word: string, baseUrl: string, apiKey: Redacted.Redacted) =>
  Effect.gen(function* () {
    const chat = yield* Chat.empty
    yield* chat.generateText({ prompt: `Define ${word}.`, toolkit: Dictionary })
    const answer = yield* chat.generateText({ prompt: "Say it in one sentence." })
    return answer.text
  }).pipe(Effect.provide(DictionaryLive), Effect.provide(model(baseUrl, apiKey)))

// 3. A failure is an AiError whose reason is the kernel's classification:
//    retry what says it is retryable (a rate limit, an overload), never an
//    auth or quota error. The kernel's own loop does more (retry-after
//    floor, budget, fallback): see LanguageModelProvider.
export const ask = (prompt: string, baseUrl: string, apiKey: Redacted.Redacted) =>
  LanguageModel.generateText({ prompt }).pipe(
    Effect.retry({ times: 2, while: (error) => error.isRetryable }),
    Effect.map((response) => response.text),
    Effect.provide(model(baseUrl, apiKey))
  )
