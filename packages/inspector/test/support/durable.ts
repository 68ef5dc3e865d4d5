/**
 * A process that owns a durable store, for the durable adapter's tests: the
 * durable sessions over an engine, their model the fake provider over real
 * HTTP. Its runs start on fibers of its own; closing its scope stops them as
 * a killed process's stop (nothing more is written).
 */
import { DurableSessions, type Engine } from "@agent-kernel/durable"
import { EventBus, Settings, Toolbox } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"

/** What the model answers: each call held after its first event until the test releases them. */
export const answer = "The durable store answers, and the inspector reads it."

/** The fake provider every owner of a test talks to: each answer held until `release`. */
export const heldProvider = FakeProvider.make(
  FaultPlan.make([{ kind: "reply", text: answer, hold_after_events: 1 }], { after: "repeat_last" })
)

/** The fake provider answering at once. */
export const happyProvider = FakeProvider.make(
  FaultPlan.make([{ kind: "reply", text: answer }], { after: "repeat_last" })
)

/** The fake provider refusing every call with a 429 (retry-after 0). */
export const rateLimitedProvider = FakeProvider.make(
  FaultPlan.make(
    [
      {
        kind: "error",
        status: 429,
        error_type: "rate_limit_error",
        message: "Number of requests has exceeded your per-minute rate limit",
        headers: { "retry-after": "0" }
      }
    ],
    { after: "repeat_last" }
  )
)

/**
 * An owner of the store `engine` opens: its sessions, and a crash that closes it under its runs. Its
 * settings are the defaults without jitter, with `settings` over them.
 */
export const owner = <E>(
  engine: Layer.Layer<Engine.Engine, E>,
  providerUrl: string,
  settings: Partial<Settings.Settings> = {}
) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const layer = DurableSessions.layer({
      model: "fake-model",
      settings: { ...Settings.defaults, jitter: "none", ...settings }
    }).pipe(
      Layer.provideMerge(engine),
      Layer.provide(Anthropic.layerFetch({ apiKey: Redacted.make("fake-key"), baseUrl: providerUrl })),
      Layer.provide(Toolbox.layerEmpty),
      Layer.provide(EventBus.layer())
    )
    const context = yield* Layer.buildWithScope(layer, scope)
    const sessions = Layer.succeedContext(context)
    return {
      context,
      sessions,
      /** Starts a run and returns at once; its outcome is the store's to tell. */
      start: (id: string, input: string) =>
        Effect.forkDetach(
          Effect.flatMap(DurableSessions.DurableSessions, (service) => service.run(id, input)).pipe(
            Effect.provide(context)
          )
        ),
      run: (id: string, input: string) =>
        Effect.flatMap(DurableSessions.DurableSessions, (service) => service.run(id, input)).pipe(
          Effect.provide(context)
        ),
      close: Scope.close(scope, Exit.void)
    }
  })

/** Real time passes here: `check` again every 20 ms until `done`, for 30 s at most (a ceiling, not a measure). */
export const until = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.die(new Error("timed out waiting")) })
  )
