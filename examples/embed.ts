import { EventBus, Session, Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"

// A model that is rate limited once (the server asks for 1 s), then answers.
const program = Effect.gen(function* () {
  const model = yield* ScriptedModel.make([
    ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
    ScriptedModel.text("Hi!")
  ])
  const settings = yield* Settings.decode({ max_retries: 3, jitter: "full" })
  const bus = yield* EventBus.make([
    { onEvent: (event) => Effect.log(event.type === "retry_scheduled" ? `retry in ${event.delay_ms} ms` : event.type) }
  ])
  const session = yield* Session.make({ model: "any-model", settings }).pipe(
    Effect.provide(model.layer),
    Effect.provideService(EventBus.EventBus, bus)
  )
  const outcome = yield* session.run("Say hi")
  yield* Effect.log(`${outcome.status}: ${outcome.final_text} (${outcome.retries.session_total} retry)`)
})

Effect.runPromise(program)
