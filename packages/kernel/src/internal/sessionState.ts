import * as Content from "../Content.js"
import type * as Decision from "../Decision.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as SessionApi from "../Session.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Usage from "../Usage.js"
import * as Log from "./log.js"

/**
 * The session's state as the loop keeps it: `Session.State`, with the
 * history and the working context as append-only logs (a step appends in
 * O(1) and never copies the conversation) and a running token estimate of
 * the working context (a step never rescans it). Every function here is a
 * pure step from one state to the next.
 *
 * @internal
 */
export interface State {
  readonly history: Log.Log<Content.Message>
  readonly context: Log.Log<Content.Message>
  readonly contextTokens: number
  readonly budget: RetryBudget.State
  readonly runs: number
  readonly run: SessionApi.RunState | null
}

/**
 * A resumed budget under the session's: a state saved under a larger
 * `max_session_retries` holds more tokens than the budget can hold now, and
 * would grant retries past the new ceiling.
 */
const clamped = (state: RetryBudget.State, budget: RetryBudget.Budget): RetryBudget.State =>
  state.tokens > budget.initial.tokens ? { used: state.used, tokens: budget.initial.tokens } : state

/** @internal */
export const initial = (options: SessionApi.Options, budget: RetryBudget.Budget): State => {
  const resumed = options.state
  const history = resumed?.history ?? options.history ?? []
  const context = resumed?.context ?? history
  return {
    history: Log.fromArray(history),
    context: Log.fromArray(context),
    contextTokens: TokenEstimate.messages(context),
    budget: resumed === undefined ? budget.initial : clamped(resumed.budget, budget),
    runs: resumed?.runs ?? 0,
    run: resumed?.run ?? null
  }
}

/** @internal */
export const toPublic = (state: State): SessionApi.State => ({
  history: Log.toArray(state.history),
  context: Log.toArray(state.context),
  budget: state.budget,
  runs: state.runs,
  run: state.run
})

/**
 * The figures of the current run. A run's state always has them: `startRun`
 * sets them before the loop reads them.
 *
 * @internal
 */
export const figures = (state: State): SessionApi.RunState => {
  if (state.run === null) throw new Error("agent-kernel: a run's figures were read outside a run")
  return state.run
}

/** @internal */
export const withRun = (state: State, run: Partial<SessionApi.RunState>): State => ({
  ...state,
  run: { ...figures(state), ...run }
})

/** A message appended to the history and to the working context. */
const appended = (state: State, message: Content.Message): State => ({
  ...state,
  history: Log.append(state.history, message),
  context: Log.append(state.context, message),
  contextTokens: state.contextTokens + TokenEstimate.message(message)
})

/**
 * A run's start: its figures, and its input appended.
 *
 * @internal
 */
export const startRun = (state: State, sessionId: string, startedAt: number, input: Content.Message): State => ({
  ...appended(state, input),
  runs: state.runs + 1,
  run: {
    run_id: `${sessionId}/run-${state.runs + 1}`,
    started_at: startedAt,
    turns: 0,
    attempt: 0,
    model_index: 0,
    retries: 0,
    max_per_call: 0,
    usage: Usage.empty,
    cost_usd: null,
    reductions: 0,
    final_text: "",
    unpriced: []
  }
})

/** A turn's start: its number, no attempt yet, the chain's first model, no retries. @internal */
export const turnStarted = (state: State, turn: number): State => ({
  ...state,
  run: { ...figures(state), turns: turn, attempt: 0, model_index: 0, retries: 0 }
})

/** The next attempt of the turn's call. @internal */
export const attempting = (state: State): State => {
  const run = figures(state)
  return { ...state, run: { ...run, attempt: run.attempt + 1 } }
}

/** Appends a message to the history and to the working context. @internal */
export const append = (state: State, message: Content.Message): State => appended(state, message)

/**
 * What a call spent, as the run's figures: its usage and cost added to the
 * run's (see the loop's `spent`).
 *
 * @internal
 */
export type Spent = Pick<SessionApi.RunState, "usage" | "cost_usd" | "unpriced">

/**
 * A model's answer: appended, with the budget it left and what it spent; its
 * text, when it has any, is the run's final text.
 *
 * @internal
 */
export const answered = (
  state: State,
  message: Content.Message,
  budget: RetryBudget.State,
  spent: Spent,
  text: string
): State => {
  const run = figures(state)
  return {
    ...appended(state, message),
    budget,
    run: {
      ...run,
      usage: spent.usage,
      cost_usd: spent.cost_usd,
      unpriced: spent.unpriced,
      final_text: text.length > 0 ? text : run.final_text
    }
  }
}

/**
 * The state after a failed attempt's plan (`Decision.plan`): the budget it
 * charged and the call's counters it moved.
 *
 * @internal
 */
export const planned = (state: State, budget: RetryBudget.State, counters: Decision.Counters): State => ({
  ...state,
  budget,
  run: {
    ...figures(state),
    retries: counters.retries,
    max_per_call: counters.maxPerCall,
    model_index: counters.modelIndex,
    reductions: counters.reductions
  }
})

/** The working context replaced by a reduction of it, and its estimate. @internal */
export const reduced = (state: State, context: Content.History, tokens: number): State => ({
  ...state,
  context: Log.fromArray(context),
  contextTokens: tokens
})

/**
 * The results of a turn's calls, in the calls' order: each call's own result
 * when it came back, an error result saying `reason` when it did not.
 *
 * @internal
 */
export const resultsFor = (
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: ReadonlyArray<Content.ToolResultBlock | undefined>,
  reason: string
): ReadonlyArray<Content.ToolResultBlock> =>
  calls.map((call, i) => results[i] ?? Content.toolResult(call.id, reason, true))

/**
 * Answers every tool_use of a trailing assistant message with an error
 * tool_result saying `reason`, so the history stays valid.
 *
 * @internal
 */
export const answerPending = (state: State, reason: string): State => {
  const last = Log.last(state.history)
  const pending = last?.role === "assistant" ? Content.toolUses(last) : []
  return pending.length === 0 ? state : append(state, { role: "user", content: resultsFor(pending, [], reason) })
}
