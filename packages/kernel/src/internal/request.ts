import * as Effect from "effect/Effect"
import type * as Content from "../Content.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Log from "./log.js"
import type * as Run from "./run.js"
import type * as SessionState from "./sessionState.js"

/**
 * A request ready to send, with what its `model_request` event announces.
 *
 * @internal
 */
export interface Prepared {
  readonly request: ModelProvider.ModelRequest
  /** How many messages the request carries. */
  readonly messages: number
  /** The kernel's estimate of the whole request (`TokenEstimate.request`). */
  readonly estimatedTokens: number
}

/**
 * The request for the next attempt on `model`: the working context as the
 * context provider assembles it (when it does), and the tools the toolbox
 * offers now.
 *
 * @internal
 */
export const prepare = (run: Run.Run, state: SessionState.State, model: string): Effect.Effect<Prepared> => {
  const { env } = run
  const { assemble } = env.contextProvider
  const prepared = (assembled: Content.History | undefined) =>
    Effect.map(env.toolbox.definitions, (tools): Prepared => {
      const request = requestOf(model, state.context, assembled, tools, env)
      return {
        request,
        messages: assembled === undefined ? state.context.length : assembled.length,
        estimatedTokens:
          overhead(run, request) + (assembled === undefined ? state.contextTokens : TokenEstimate.messages(assembled))
      }
    })
  return assemble === undefined ? prepared(undefined) : Effect.flatMap(assemble(Log.toArray(state.context)), prepared)
}

/**
 * A request whose messages are the working context as it was when the
 * request was made. The log is append-only, so its first `length` messages
 * never change: their array is made when someone reads it (a provider
 * encoding the request), and the loop never copies the conversation a step.
 */
const requestOf = (
  model: string,
  context: Log.Log<Content.Message>,
  assembled: Content.History | undefined,
  tools: ReadonlyArray<ModelProvider.ToolDefinition>,
  env: Pick<Run.Env, "system" | "maxOutputTokens" | "request">
): ModelProvider.ModelRequest => {
  let messages = assembled
  const request = {
    model,
    tools,
    get messages(): Content.History {
      if (messages === undefined) messages = Log.toArray(context)
      return messages
    }
  }
  if (env.system !== undefined) Object.assign(request, { system: env.system })
  if (env.maxOutputTokens !== undefined) Object.assign(request, { max_output_tokens: env.maxOutputTokens })
  if (env.request !== undefined) Object.assign(request, env.request)
  return request
}

/**
 * The request's estimate without its messages, worked out again only when
 * the tool definitions differ from the last ones seen (the system prompt is
 * the session's, the same all run). The definitions are compared one by one
 * with a copy of the last ones: a toolbox may change the array it hands out
 * (add a tool it found), never a definition in it.
 */
const overhead = (run: Run.Run, request: ModelProvider.ModelRequest): number => {
  const seen = run.overhead
  if (seen !== undefined && sameDefinitions(seen.definitions, request.tools)) return seen.tokens
  const made = { definitions: Array.from(request.tools), tokens: TokenEstimate.requestOverhead(request) }
  run.overhead = made
  return made.tokens
}

const sameDefinitions = (seen: ReadonlyArray<unknown>, tools: ReadonlyArray<unknown>): boolean =>
  seen.length === tools.length && seen.every((definition, i) => definition === tools[i])
