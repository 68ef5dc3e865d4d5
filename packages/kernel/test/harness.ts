import { Content, type Toolbox } from "@agent-kernel/kernel"
import { RecordedRun, ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

export interface Harness extends RecordedRun.Recorded {
  readonly calls: ReadonlyArray<ScriptedModel.Call>
}

export interface HarnessOptions extends RecordedRun.Options {}

/** Runs one input through a fresh session against a scripted model, under the TestClock. */
export const runScript = (script: ReadonlyArray<ScriptedModel.Step>, options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(script)
    const recorded = yield* RecordedRun.run(model.provider, options)
    return { ...recorded, calls: yield* model.calls } satisfies Harness
  })

export const ofType = RecordedRun.ofType

/** A toolbox that echoes its input, or fails as told. */
export const echoToolbox: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "echo", description: "Echo the input", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

/** The fiber's tracer, recording every span it starts (in start order) before handing it back. */
export const recordingTracer = Effect.map(Effect.tracer, (base) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span(options) {
      const span = base.span(options)
      spans.push(span)
      return span
    },
    context: base.context
  })
  return { spans, tracer }
})

/** Yields `times` times, so that forked fibers run as far as they can without the clock moving. */
export const settle = (times = 300) =>
  Effect.gen(function* () {
    for (let i = 0; i < times; i++) yield* Effect.yieldNow
  })
