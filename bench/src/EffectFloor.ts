/**
 * The floor of any loop written in Effect: the plain loop's scenario as one
 * `Effect.gen`, with the model's wait an `Effect.sleep` and the tool an
 * `Effect.sync`, and nothing else (no retry, event, bound or state). The
 * variants add, one at a time, what an agent loop does around each call:
 * - `forked`: each call on a fiber of its own (`Effect.forkChild`, then
 *   `Fiber.join`): what a call needs so that its timeout can interrupt it
 *   without interrupting the run;
 * - `started`: the same, the fiber started at once on the caller's stack
 *   (`startImmediately`), as the kernel starts its model calls: a call that
 *   ends at once never goes through the scheduler;
 * - `spanned`: each call, and the run, in a span on Effect's default tracer
 *   (without stack traces, as the kernel makes them);
 * - `traced`: both, each call a span on a fiber of its own;
 * - `idiomatic`: the loop written with Effect's own tools for what an agent
 *   loop must do: the model call started on a fiber of its own under
 *   `Effect.timeout` and in a span, the tool call in a span, the history in
 *   a `Ref`, the run under a one-permit `Semaphore`.
 *
 * What the kernel costs above these rows is the kernel's; what these rows
 * cost above the plain loop is Effect's, which no loop on Effect avoids.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import type * as PlainLoop from "./PlainLoop.js"
import * as Script from "./Script.js"

/**
 * What the loop adds to a bare `Effect.gen` around each call.
 *
 * @since 0.1.0
 * @category models
 */
export type Variant = "bare" | "forked" | "started" | "spanned" | "traced" | "idiomatic"

/**
 * Every variant.
 *
 * @since 0.1.0
 * @category models
 */
export const variants: ReadonlyArray<Variant> = ["bare", "forked", "started", "spanned", "traced", "idiomatic"]

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

/** The model call's timeout in the idiomatic loop: far longer than any call here, as a real one is. */
const attemptTimeout = "10 minutes"

const onFiber = <A>(call: Effect.Effect<A>, startImmediately: boolean): Effect.Effect<A> =>
  Effect.flatMap(Effect.forkChild(call, { startImmediately }), Fiber.join)

const around = <A>(variant: Variant, name: string, call: Effect.Effect<A>): Effect.Effect<A> => {
  switch (variant) {
    case "bare":
    case "idiomatic":
      return call
    case "forked":
      return onFiber(call, false)
    case "started":
      return onFiber(call, true)
    case "spanned":
      return Effect.withSpan(call, name, spanOptions)
    case "traced":
      return onFiber(Effect.withSpan(call, name, spanOptions), false)
  }
}

const modelCall = (variant: Variant, call: Effect.Effect<PlainLoop.Message>): Effect.Effect<PlainLoop.Message> =>
  variant === "idiomatic"
    ? onFiber(Effect.withSpan(Effect.orDie(Effect.timeout(call, attemptTimeout)), "model", spanOptions), true)
    : around(variant, "model", call)

const toolCall = (variant: Variant, call: Effect.Effect<PlainLoop.Block>): Effect.Effect<PlainLoop.Block> =>
  variant === "idiomatic" ? Effect.withSpan(call, "tool", spanOptions) : around(variant, "tool", call)

/** The scripted model and tool of one run, with their counters. */
const script = (steps: number, latencyMs: number) => {
  const counted: Script.Counted = { model: 0, tool: 0 }
  const reply = Effect.sync((): PlainLoop.Message => {
    const call = counted.model++
    return Script.wantsTool(call, steps)
      ? {
          role: "assistant",
          content: [{ type: "tool_use", id: Script.callId(call), name: Script.toolName, input: Script.input(call) }]
        }
      : { role: "assistant", content: [{ type: "text", text: Script.finalText }] }
  })
  const model = latencyMs > 0 ? Effect.andThen(Effect.sleep(latencyMs), reply) : reply
  const tool = (id: string, input: Script.Input) =>
    Effect.sync((): PlainLoop.Block => {
      counted.tool++
      return { type: "tool_result", tool_use_id: id, content: Script.echo(input), is_error: false }
    })
  return { counted, model, tool }
}

/**
 * One run of the scenario: `steps` tool steps, then the final answer.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (steps: number, options: Options): Effect.Effect<ReadonlyArray<PlainLoop.Message>> => {
  const { variant } = options
  const loop = Effect.gen(function* () {
    const { counted, model, tool } = script(steps, options.latencyMs ?? 0)
    const first: PlainLoop.Message = { role: "user", content: [{ type: "text", text: Script.prompt }] }
    // A plain array but in the idiomatic loop, whose history is a Ref as a session's state would be.
    const history: Array<PlainLoop.Message> = [first]
    const kept = variant === "idiomatic" ? yield* Ref.make(Chunk.of(first)) : undefined
    while (true) {
      const message = yield* modelCall(variant, model)
      if (kept === undefined) history.push(message)
      else yield* Ref.update(kept, Chunk.append(message))
      const results: Array<PlainLoop.Block> = []
      for (const block of message.content)
        if (block.type === "tool_use") results.push(yield* toolCall(variant, tool(block.id, block.input)))
      if (results.length === 0) break
      const answer: PlainLoop.Message = { role: "user", content: results }
      if (kept === undefined) history.push(answer)
      else yield* Ref.update(kept, Chunk.append(answer))
    }
    Script.check(`Effect floor (${variant})`, steps, counted)
    return kept === undefined ? history : Chunk.toReadonlyArray(yield* Ref.get(kept))
  })
  switch (variant) {
    case "spanned":
    case "traced":
      return Effect.withSpan(loop, "run", spanOptions)
    case "idiomatic":
      return Effect.flatMap(Semaphore.make(1), (lock) =>
        Effect.withSpan(Semaphore.withPermit(lock, loop), "run", spanOptions)
      )
    default:
      return loop
  }
}
