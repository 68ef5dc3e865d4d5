/**
 * The one scenario every loop in the benchmark runs, so that they do the same
 * work: a model that asks for `steps` calls of one tool, one call per
 * response, then answers with text; the tool echoes its input as JSON.
 *
 * A run is `steps + 1` model calls and `steps` tool calls. Every loop counts
 * the tool calls it really made and fails the run when the count is wrong, so
 * a loop that stops early (or never calls the tool) cannot look fast.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category constants
 */
export const toolName = "echo"

/**
 * @since 0.1.0
 * @category constants
 */
export const toolDescription = "Echoes its input."

/**
 * The tool's input schema, as JSON Schema, for the loops that take one.
 *
 * @since 0.1.0
 * @category constants
 */
export const inputJsonSchema = {
  type: "object",
  properties: { i: { type: "number" } },
  required: ["i"],
  additionalProperties: false
} as const

/**
 * The input of the model's `call`-th tool call (0-based).
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly i: number
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const input = (call: number): Input => ({ i: call })

/**
 * The id of the model's `call`-th tool call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const callId = (call: number): string => `call_${call}`

/**
 * What the tool answers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const echo = (value: Input): string => JSON.stringify(value)

/**
 * The model's last answer.
 *
 * @since 0.1.0
 * @category constants
 */
export const finalText = "done"

/**
 * The user's input that starts a run.
 *
 * @since 0.1.0
 * @category constants
 */
export const prompt = "go"

/**
 * Whether the model's `call`-th call (0-based) asks for a tool, in a run of
 * `steps` steps.
 *
 * @since 0.1.0
 * @category predicates
 */
export const wantsTool = (call: number, steps: number): boolean => call < steps

/**
 * The calls a run made, counted as they happen.
 *
 * @since 0.1.0
 * @category models
 */
export interface Counted {
  model: number
  tool: number
}

/**
 * Fails when a run did not make exactly `steps` tool calls and `steps + 1`
 * model calls.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (loop: string, steps: number, counted: Readonly<Counted>): void => {
  if (counted.model !== steps + 1 || counted.tool !== steps)
    throw new Error(
      `${loop}: a ${steps}-step run made ${counted.model} model calls and ${counted.tool} tool calls ` +
        `(expected ${steps + 1} and ${steps})`
    )
}
