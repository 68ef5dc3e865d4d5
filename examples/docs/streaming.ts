import { Session } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"

const answer = ScriptedModel.text("Streams arrive in pieces.")

export const run = Effect.gen(function* () {
  // The first attempt fails after two deltas; the retry streams the whole answer again.
  const model = yield* ScriptedModel.make([
    ScriptedModel.chunked(answer, [8, 6], { failAfter: 2, gapMs: 100 }),
    ScriptedModel.chunked(answer, [8, 6, 4], { gapMs: 100 })
  ])
  const session = yield* Session.make({
    model: "any-model",
    // Back-pressure: a reader this many events behind holds up the run; nothing is dropped.
    subscriberCapacity: Session.SubscriberCapacity.make(256)
  }).pipe(Effect.provide(model.layer))
  // Subscribe before the run, and read on another fiber.
  const events = yield* session.subscribe
  const screen = yield* Effect.forkChild(
    events.pipe(
      Stream.takeUntil((event) => event.type === "run_ended"),
      Stream.runFold(
        () => "",
        (shown, event) => {
          switch (event.type) {
            case "text_delta":
              return shown + event.text
            case "stream_restarted":
              // What the failed attempt showed is not part of the answer: drop it.
              return shown.slice(0, shown.length - event.discarded_text_chars)
            default:
              return shown
          }
        }
      )
    )
  )
  const outcome = yield* session.run("hello")
  return { outcome, shown: yield* Fiber.join(screen) }
}).pipe(Effect.scoped)
