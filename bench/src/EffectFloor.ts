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
 *   calls are when a tracer is on.
 *
 * What the kernel costs above these rows is the kernel's; what these rows
 * cost above the plain loop is Effect's, which no loop on Effect avoids.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as PlainLoop from "./PlainLoop.js"
import * as Script from "./Script.js"

/**
 * What the loop adds to a bare `Effect.gen` around each call.
 *
 * @since 0.1.0
 * @category models
 */
export type Variant = "bare" | "forked" | "spanned" | "traced"

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
  const spanned = variant === "spanned" || variant === "traced"
  const around = <A>(name: string, call: Effect.Effect<A>): Effect.Effect<A> => {
    const made = spanned ? Effect.withSpan(call, name, spanOptions) : call
    return forked ? Effect.flatMap(Effect.fork(made), Fiber.join) : made
  }
  const loop = Effect.suspend(() => {
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
  })
  return spanned ? Effect.withSpan(loop, "run", spanOptions) : loop
}
