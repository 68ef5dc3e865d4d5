/**
 * The guard is not optional: the adapter's type requires `SingleRequest.Guarded`, and an `ExecutionPlan`
 * around the model's call (the retry effect/ai users reach for) is stopped by `ResendBlocked` as the README
 * says, so the kernel sees the first request's classified failure.
 */
import { LanguageModelProvider, SingleRequest } from "../src/index.js"
import { Content, ModelProvider } from "@agent-kernel/kernel"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { apis, configure, languageModel } from "./support.js"

// Forgetting the guard does not compile: only SingleRequest.layer (or layerNoHttp) provides the proof.
// @ts-expect-error the adapter requires SingleRequest.Guarded besides the LanguageModel
const _unguarded: Layer.Layer<ModelProvider.ModelProvider, never, LanguageModel.LanguageModel> =
  LanguageModelProvider.layer()

/** The model's calls run under an ExecutionPlan of three attempts: what effect/ai offers for retries. */
const withExecutionPlan = (model: LanguageModel.LanguageModel): LanguageModel.LanguageModel => {
  const plan = ExecutionPlan.make({ provide: Layer.empty, attempts: 3 })
  // The methods are overloaded on their options; one wrapper serves every overload.
  const generateText = ((options: Parameters<typeof model.generateText>[0]) =>
    Effect.withExecutionPlan(model.generateText(options), plan)) as typeof model.generateText
  const streamText = ((options: Parameters<typeof model.streamText>[0]) =>
    Stream.withExecutionPlan(model.streamText(options), plan)) as typeof model.streamText
  return { ...model, generateText, streamText }
}

describe.each(apis)("an ExecutionPlan around the %s model", (api) => {
  it.effect("is stopped by ResendBlocked: one request, and the kernel sees the first failure, an auth_error", () =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(
        FakeProvider.make(
          FaultPlan.make([{ kind: "error", status: 401, error_type: "authentication_error" }], {
            after: "repeat_last"
          })
        )
      )
      const built = yield* Layer.build(languageModel(api, server))
      const provider = LanguageModelProvider.fromLanguageModel(
        withExecutionPlan(Context.get(built, LanguageModel.LanguageModel)),
        Context.get(built, SingleRequest.Guarded),
        { name: api, dialect: api, configure }
      )
      const error = yield* Effect.flip(
        ModelProvider.generate(provider, { model: "m", messages: [Content.userText("hi")], tools: [] })
      )
      expect(error._tag).toBe("AuthError")
      expect(error.details?.["source"]).toBe("SingleRequest")
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("the same plan outside an adapter call re-sends: the plan does retry, the guard is what stops it", () =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(
        FakeProvider.make(
          FaultPlan.make([{ kind: "error", status: 401, error_type: "authentication_error" }], {
            after: "repeat_last"
          })
        )
      )
      const built = yield* Layer.build(languageModel(api, server))
      const model = withExecutionPlan(Context.get(built, LanguageModel.LanguageModel))
      yield* Effect.flip(model.generateText({ prompt: "hi" }))
      expect(yield* server.requests).toHaveLength(3)
    })
  )
})
