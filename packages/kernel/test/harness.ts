import {
  Content,
  EventBus,
  type KernelEvent,
  type RetryPolicy,
  type RunOutcome,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"

export interface Harness {
  readonly outcome: RunOutcome.RunOutcome
  readonly events: ReadonlyArray<KernelEvent.KernelEvent>
  readonly calls: ReadonlyArray<ScriptedModel.Call>
  readonly session: Session.Service
}

export interface HarnessOptions {
  readonly settings?: Partial<Settings.Settings>
  readonly toolbox?: Toolbox.Service
  readonly policy?: RetryPolicy.RetryPolicy
  readonly observers?: ReadonlyArray<EventBus.Observer>
  readonly input?: string
  readonly history?: Content.History
}

/** Runs one input through a fresh session against a scripted model, under the TestClock. */
export const runScript = (script: ReadonlyArray<ScriptedModel.Step>, options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(script)
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([
      { onEvent: (event) => Effect.sync(() => events.push(event)) },
      ...(options.observers ?? [])
    ])
    const session = yield* Session.make({
      model: "model-a",
      settings: { ...Settings.defaults, ...options.settings },
      policy: options.policy,
      history: options.history
    }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, options.toolbox ?? Toolbox.empty)
    )
    const outcome = yield* TestClockDriver.run(session.run(options.input ?? "hello"))
    return { outcome, events, calls: yield* model.calls, session } satisfies Harness
  })

export const ofType = <T extends KernelEvent.EventType>(
  events: ReadonlyArray<KernelEvent.KernelEvent>,
  type: T
): ReadonlyArray<KernelEvent.EventOf<T>> =>
  events.filter((event): event is KernelEvent.EventOf<T> => event.type === type)

/** A toolbox that echoes its input, or fails as told. */
export const echoToolbox: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "echo", description: "Echo the input", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}
