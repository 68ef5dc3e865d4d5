/**
 * The floor: the agent loop as a plain `async` function, with messages of the
 * same shape as the kernel's and no retry, event, span or bound. Every other
 * loop's figures are read as a ratio to this one, measured in the same run.
 *
 * @since 0.1.0
 */
import { setTimeout as sleep } from "node:timers/promises"
import * as Script from "./Script.js"

/**
 * A content block of the scenario's messages, in the kernel's shape.
 *
 * @since 0.1.0
 * @category models
 */
export type Block =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Script.Input }
  | { readonly type: "tool_result"; readonly tool_use_id: string; readonly content: string; readonly is_error: boolean }

/**
 * A message of the scenario's history, in the kernel's shape.
 *
 * @since 0.1.0
 * @category models
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: ReadonlyArray<Block>
}

/**
 * Options of one run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long each model call waits on a real timer; 0 answers at once. */
  readonly latencyMs?: number | undefined
}

/**
 * One run of the scenario: `steps` tool steps, then the final answer. Returns
 * the history, which the idle-memory section keeps.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (steps: number, options: Options = {}): Promise<ReadonlyArray<Message>> => {
  const latencyMs = options.latencyMs ?? 0
  const counted: Script.Counted = { model: 0, tool: 0 }
  const model = async (_history: ReadonlyArray<Message>): Promise<Message> => {
    if (latencyMs > 0) await sleep(latencyMs)
    const call = counted.model++
    return Script.wantsTool(call, steps)
      ? {
          role: "assistant",
          content: [{ type: "tool_use", id: Script.callId(call), name: Script.toolName, input: Script.input(call) }]
        }
      : { role: "assistant", content: [{ type: "text", text: Script.finalText }] }
  }
  const tool = async (id: string, input: Script.Input): Promise<Block> => {
    counted.tool++
    return { type: "tool_result", tool_use_id: id, content: Script.echo(input), is_error: false }
  }
  const history: Array<Message> = [{ role: "user", content: [{ type: "text", text: Script.prompt }] }]
  while (true) {
    const message = await model(history)
    history.push(message)
    const results: Array<Block> = []
    for (const block of message.content) if (block.type === "tool_use") results.push(await tool(block.id, block.input))
    if (results.length === 0) break
    history.push({ role: "user", content: results })
  }
  Script.check("plain async loop", steps, counted)
  return history
}
