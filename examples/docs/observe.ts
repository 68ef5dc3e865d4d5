import { EventBus, Metrics, Session } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"

export const run = Effect.gen(function* () {
  const lines: Array<string> = []
  // Observers: one for every event, one for the post-model-response hook. Their failures never reach the run.
  const bus = yield* EventBus.make([
    { onEvent: (event) => Effect.sync(() => lines.push(event.type)) },
    {
      onModelResponse: (response, info) =>
        Effect.sync(() =>
          lines.push(`turn ${info.turn}: ${response.stop_reason}, ${response.usage.output_tokens} tokens out`)
        )
    }
  ])
  const model = yield* ScriptedModel.make([ScriptedModel.error("overloaded"), ScriptedModel.text("hi")])
  const session = yield* Session.make({ model: "any-model" }).pipe(
    Effect.provide(model.layer),
    Effect.provideService(EventBus.EventBus, bus)
  )
  // A Stream subscribed before the run starts, so no event is missed.
  const events = yield* session.subscribe
  const retries = yield* Effect.forkChild(
    events.pipe(
      Stream.takeUntil((event) => event.type === "run_ended"),
      Stream.filter((event) => event.type === "retry_scheduled"),
      Stream.runCount
    )
  )
  const outcome = yield* session.run("hello")
  const overloaded = yield* Metric.value(Metric.withAttributes(Metrics.retries, { category: "overloaded" }))
  return { outcome, lines, retriesSeen: yield* Fiber.join(retries), overloadedRetriesTotal: overloaded.count }
}).pipe(Effect.scoped)
