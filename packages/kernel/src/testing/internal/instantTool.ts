import * as Content from "../../Content.js"
import * as Effect from "effect/Effect"
import type * as Toolbox from "../../Toolbox.js"

/**
 * The tool's name, for a scripted response that asks for it.
 *
 * @internal
 */
export const name = "next"

/**
 * A toolbox of one tool, `next`, that answers at once: a simulated model that
 * asks for it takes another turn with no time between the two calls.
 *
 * @internal
 */
export const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([{ name, description: "Go on", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
}
