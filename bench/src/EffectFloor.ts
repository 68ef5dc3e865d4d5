/**
 * The floor of any loop written in Effect: the plain loop's scenario as one
 * `Effect.gen`, with the model's wait an `Effect.sleep` and the tool an
 * `Effect.sync`, and nothing else (no retry, event, bound or state). Two
 * variants add, one at a time, what the kernel's loop must do on every call:
 * - `forked`: each call runs on a fiber of its own (what a call needs so that
 *   its timeout can interrupt it without interrupting the run);
 * - `spanned`: each call, and the run, makes a span on Effect's default
 *   tracer (without stack traces, as the kernel makes them);
 * - `traced`: both, each call a span on a fiber of its own, as the kernel's
 *   calls are when a tracer is on;
 * - `started`: each call on a fiber of its own started the way the kernel
 *   starts its calls (`Runtime.runFork` at once on the caller's stack, from
 *   the run's runtime), waited for only when it suspended: a call that ends
 *   at once (the tool) is read from its fiber with no wait and no trip
 *   through the scheduler, where `Effect.fork` starts every fiber through it
 *   and `Fiber.join` waits for every one.
 *
 * What the kernel costs above these rows is the kernel's; what these rows
 * cost above the plain loop is Effect's, which no loop on Effect avoids.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Runtime from "effect/Runtime"
import type * as PlainLoop from "./PlainLoop.js"
import * as Script from "./Script.js"

/**
 * What the loop adds to a bare `Effect.gen` around each call.
 *
 * @since 0.1.0
 * @category models
 */
export type Variant = "bare" | "forked" | "spanned" | "traced" | "started"

/**
 * Options of one run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long each model call waits on Effect's live clock; 0 answers at once. */
  readonly latencyMs?: number | undefined
  readonly variant: Variant
}

const spanOptions = { captureStackTrace: false } as const

const immediately: Runtime.RunForkOptions = { immediate: true }

/**
 * The run's runtime as the kernel's `starter` makes it once a run for its
 * calls: its refs without the context, which `Runtime.runFork` puts back.
 */
const callRuntime = (runtime: Runtime.Runtime<never>): Runtime.Runtime<never> =>
  Runtime.make({
    context: runtime.context,
    fiberRefs: FiberRefs.delete(runtime.fiberRefs, FiberRef.currentContext),
    runtimeFlags: runtime.runtimeFlags
  })

/**
 * `call` on a fiber of its own, started at once on the caller's stack from
 * `runtime`; its exit is read at once when it did not suspend, and waited
 * for otherwise as the kernel's `settle` waits: a bare `Effect.async` (with
 * no canceler, whose `onInterrupt` wrapping costs more), the call interrupted
 * and waited for if the wait is.
 */
const startedOn = <A>(runtime: Runtime.Runtime<never>, call: Effect.Effect<A>): Effect.Effect<A> =>
  Effect.suspend(() => {
    const fiber = Runtime.runFork(runtime, call, immediately)
    const exit = fiber.unsafePoll()
    if (exit !== null) return exit
    return Effect.flatten(
      Effect.uninterruptibleMask((restore) =>
        Effect.catchAllCause(
          restore(
            Effect.async<Exit.Exit<A>>((resume) => {
              fiber.addObserver((exit) => resume(Effect.succeed(exit)))
            })
          ),
          (cause) => Effect.zipRight(Fiber.interrupt(fiber), Effect.failCause(cause))
        )
      )
    )
  })

/**
 * One run of the scenario: `steps` tool steps, then the final answer.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (steps: number, options: Options): Effect.Effect<ReadonlyArray<PlainLoop.Message>> => {
  const { variant } = options
  const latencyMs = options.latencyMs ?? 0
  const forked = variant === "forked" || variant === "traced"
  const started = variant === "started"
  const spanned = variant === "spanned" || variant === "traced"
  // The run's runtime is read only by the variants that start fibers from it: the others' rows stay as they were.
  const body = (runtime: Runtime.Runtime<never> | undefined) => {
    const around = <A>(name: string, call: Effect.Effect<A>): Effect.Effect<A> => {
      const made = spanned ? Effect.withSpan(call, name, spanOptions) : call
      if (forked) return Effect.flatMap(Effect.fork(made), Fiber.join)
      return runtime === undefined ? made : startedOn(runtime, made)
    }
    const counted: Script.Counted = { model: 0, tool: 0 }
    const model = Effect.suspend(() => {
      const reply = Effect.sync((): PlainLoop.Message => {
        const call = counted.model++
        return Script.wantsTool(call, steps)
          ? {
              role: "assistant",
              content: [{ type: "tool_use", id: Script.callId(call), name: Script.toolName, input: Script.input(call) }]
            }
          : { role: "assistant", content: [{ type: "text", text: Script.finalText }] }
      })
      return latencyMs > 0 ? Effect.zipRight(Effect.sleep(latencyMs), reply) : reply
    })
    const tool = (id: string, input: Script.Input) =>
      Effect.sync((): PlainLoop.Block => {
        counted.tool++
        return { type: "tool_result", tool_use_id: id, content: Script.echo(input), is_error: false }
      })
    return Effect.gen(function* () {
      const history: Array<PlainLoop.Message> = [{ role: "user", content: [{ type: "text", text: Script.prompt }] }]
      while (true) {
        const message = yield* around("model", model)
        history.push(message)
        const results: Array<PlainLoop.Block> = []
        for (const block of message.content)
          if (block.type === "tool_use") results.push(yield* around("tool", tool(block.id, block.input)))
        if (results.length === 0) break
        history.push({ role: "user", content: results })
      }
      Script.check(`Effect floor (${variant})`, steps, counted)
      return history
    })
  }
  const loop = started
    ? Effect.flatMap(Effect.runtime<never>(), (runtime) => body(callRuntime(runtime)))
    : Effect.suspend(() => body(undefined))
  return spanned ? Effect.withSpan(loop, "run", spanOptions) : loop
}
