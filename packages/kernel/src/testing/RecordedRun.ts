/**
 * One input through a fresh session with every event recorded, its backoff
 * sleeps taken on `TestClock`: what a test of a provider, an adapter or a
 * policy needs around the session, written once.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type * as Duration from "effect/Duration"
import type * as Content from "../Content.js"
import * as EventBus from "../EventBus.js"
import type * as KernelEvent from "../KernelEvent.js"
import * as ModelProvider from "../ModelProvider.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as RunOutcome from "../RunOutcome.js"
import * as Session from "../Session.js"
import * as Settings from "../Settings.js"
import * as Toolbox from "../Toolbox.js"
import * as TestClockDriver from "./TestClockDriver.js"

/**
 * The session around the run. Every field has a default.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /** The model name requests carry. Default `"model-a"`. */
  readonly model?: string | undefined
  /** Overrides of `Settings.defaults`. */
  readonly settings?: Partial<Settings.Settings> | undefined
  /** Default: `Toolbox.empty`. */
  readonly toolbox?: Toolbox.Service | undefined
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  /** Observers beside the recorder. */
  readonly observers?: ReadonlyArray<EventBus.Observer> | undefined
  readonly history?: Content.History | undefined
  /** Default `"hello"`. */
  readonly input?: string | undefined
  /**
   * Passed to `TestClockDriver.run`. Against a real socket, set it below the
   * provider's own timeouts so the clock never jumps past a request in flight.
   */
  readonly horizon?: Duration.Input | undefined
}

/**
 * What the run gave, and the session it ran in (for its history, state and
 * budget afterwards).
 *
 * @since 0.3.0
 * @category models
 */
export interface Recorded {
  readonly outcome: RunOutcome.RunOutcome
  readonly events: ReadonlyArray<KernelEvent.KernelEvent>
  readonly session: Session.Service
}

/**
 * Runs one input through a fresh session over `provider`, recording every
 * event in order. Use inside `it.effect`/`it.scoped`, where the TestClock is
 * installed.
 *
 * @example
 * ```ts
 * import { it, expect } from "@effect/vitest"
 * import { RecordedRun, ScriptedModel } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * it.effect("retries a rate limit, then answers", () =>
 *   Effect.gen(function* () {
 *     const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("hi")])
 *     const { outcome, events } = yield* RecordedRun.run(model.provider)
 *     expect(outcome.status).toBe("completed")
 *     expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(1)
 *   }))
 * ```
 *
 * @since 0.3.0
 * @category running
 */
export const run = (provider: ModelProvider.Service, options: Options = {}): Effect.Effect<Recorded> =>
  Effect.gen(function* () {
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([
      { onEvent: (event) => Effect.sync(() => events.push(event)) },
      ...(options.observers ?? [])
    ])
    const session = yield* Session.make({
      model: options.model ?? "model-a",
      settings: { ...Settings.defaults, ...options.settings },
      policy: options.policy,
      history: options.history
    }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, provider),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, options.toolbox ?? Toolbox.empty)
    )
    const outcome = yield* TestClockDriver.run(session.run(options.input ?? "hello"), { horizon: options.horizon })
    return { outcome, events, session }
  })

/**
 * The recorded events of one type, typed as that event.
 *
 * @since 0.3.0
 * @category filtering
 */
export const ofType = <T extends KernelEvent.EventType>(
  events: ReadonlyArray<KernelEvent.KernelEvent>,
  type: T
): ReadonlyArray<KernelEvent.EventOf<T>> =>
  events.filter((event): event is KernelEvent.EventOf<T> => event.type === type)
