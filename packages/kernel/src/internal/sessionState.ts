import * as Content from "../Content.js"
import * as ModelProvider from "../ModelProvider.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as SessionApi from "../Session.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Log from "./log.js"

/**
 * The session's state as the interpreter keeps it: `Session.State`, with the
 * history and the working context as append-only logs (a step appends in
 * O(1) and never copies the conversation) and a running token estimate of
 * the working context (a step never rescans it).
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
 * would grant retries past the new ceiling. The initial state is the full one.
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
 * The state at the start of a run: its figures, and its input appended, in one object.
 *
 * @internal
 */
export const startRun = (state: State, sessionId: string, startedAt: number, input: Content.Message): State =>
  appended(state, input, state.budget, state.runs + 1, {
    run_id: `${sessionId}/run-${state.runs + 1}`,
    started_at: startedAt,
    turns: 0,
    attempt: 0,
    model_index: 0,
    retries: 0,
    max_per_call: 0,
    usage: ModelProvider.emptyUsage,
    cost_usd: null,
    reductions: 0,
    final_text: "",
    unpriced: []
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

/**
 * The run's figures with some of them changed. Every field is written out, so
 * the figures of every step have one shape (a spread of a partial does not,
 * and was the loop's costliest line in a CPU profile).
 */
const patch = (run: SessionApi.RunState, p: Partial<SessionApi.RunState>): SessionApi.RunState => ({
  run_id: run.run_id,
  started_at: run.started_at,
  turns: p.turns ?? run.turns,
  attempt: p.attempt ?? run.attempt,
  model_index: p.model_index ?? run.model_index,
  retries: p.retries ?? run.retries,
  max_per_call: p.max_per_call ?? run.max_per_call,
  usage: p.usage ?? run.usage,
  cost_usd: p.cost_usd === undefined ? run.cost_usd : p.cost_usd,
  reductions: p.reductions ?? run.reductions,
  final_text: p.final_text ?? run.final_text,
  unpriced: p.unpriced ?? run.unpriced
})

/**
 * The state with these figures of the run. Written out, as every state a
 * step makes is: a spread with fields written over it is a slow path in V8,
 * several times the cost of the copy itself.
 */
const withFigures = (state: State, run: SessionApi.RunState): State => ({
  history: state.history,
  context: state.context,
  contextTokens: state.contextTokens,
  budget: state.budget,
  runs: state.runs,
  run
})

/** @internal */
export const withRun = (state: State, run: Partial<SessionApi.RunState>): State =>
  withFigures(state, patch(figures(state), run))

/**
 * The figures of a new attempt, which every step makes twice (a turn's
 * start, its call's attempt): through `patch`, the partials of every shape a
 * run makes met in one function, where reading their fields was a slow lookup.
 */
const attemptOf = (
  run: SessionApi.RunState,
  turns: number,
  attempt: number,
  model_index: number,
  retries: number
): SessionApi.RunState => ({
  run_id: run.run_id,
  started_at: run.started_at,
  turns,
  attempt,
  model_index,
  retries,
  max_per_call: run.max_per_call,
  usage: run.usage,
  cost_usd: run.cost_usd,
  reductions: run.reductions,
  final_text: run.final_text,
  unpriced: run.unpriced
})

/** A turn's start: its number, no attempt yet, the chain's first model, no retries. @internal */
export const turnStarted = (state: State, turn: number): State =>
  withFigures(state, attemptOf(figures(state), turn, 0, 0, 0))

/** The next attempt of the turn's call. @internal */
export const attempting = (state: State, attempt: number): State => {
  const run = figures(state)
  return withFigures(state, attemptOf(run, run.turns, attempt, run.model_index, run.retries))
}

/**
 * A message appended to the history and to the working context, with the
 * budget, the run count and the run's figures that go with it, in one new
 * state (a run's start, an answer, any other message).
 */
function appended(
  state: State,
  message: Content.Message,
  budget: RetryBudget.State,
  runs: number,
  run: SessionApi.RunState | null
): State {
  return {
    history: Log.append(state.history, message),
    context: Log.append(state.context, message),
    contextTokens: state.contextTokens + TokenEstimate.message(message),
    budget,
    runs,
    run
  }
}

/** Appends a message to the history and to the working context. @internal */
export const append = (state: State, message: Content.Message): State =>
  appended(state, message, state.budget, state.runs, state.run)

/**
 * What a call spent, as the run's figures: its usage and cost added to the
 * run's (see the loop's `accounted`).
 *
 * @internal
 */
export type Spent = Pick<SessionApi.RunState, "usage" | "cost_usd" | "unpriced">

/**
 * A model's answer: appended, with the budget it left and what it spent, in
 * one new state; its text, when it has any, is the run's final text. The
 * figures are written out, as `attemptOf` does and for the same reason.
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
  return appended(state, message, budget, state.runs, {
    run_id: run.run_id,
    started_at: run.started_at,
    turns: run.turns,
    attempt: run.attempt,
    model_index: run.model_index,
    retries: run.retries,
    max_per_call: run.max_per_call,
    usage: spent.usage,
    cost_usd: spent.cost_usd,
    reductions: run.reductions,
    final_text: text.length > 0 ? text : run.final_text,
    unpriced: spent.unpriced
  })
}

/**
 * The results of a turn's calls, in the calls' order: each call's own result
 * when it came back, an error result saying `reason` when it did not.
 * `results` itself when every call's came back (a turn that ran to its end):
 * the caller hands it over, nothing writes to it after.
 *
 * @internal
 */
export const resultsFor = (
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: ReadonlyArray<Content.ToolResultBlock | undefined>,
  reason: string
): ReadonlyArray<Content.ToolResultBlock> =>
  allBack(calls, results) ? results : calls.map((call, i) => results[i] ?? Content.toolResult(call.id, reason, true))

const allBack = (
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: ReadonlyArray<Content.ToolResultBlock | undefined>
): results is ReadonlyArray<Content.ToolResultBlock> => {
  if (results.length !== calls.length) return false
  for (let i = 0; i < results.length; i++) if (results[i] === undefined) return false
  return true
}

/**
 * Answers every tool_use of a trailing assistant message: with the result
 * that came back (`results`, at the call's index, while the turn's tools
 * ran), or an error tool_result saying `reason`.
 *
 * @internal
 */
export const answerPending = (
  state: State,
  reason: string,
  results: ReadonlyArray<Content.ToolResultBlock | undefined> = []
): State => {
  const last = Log.last(state.history)
  const pending = last?.role === "assistant" ? Content.toolUses(last) : []
  return pending.length === 0 ? state : append(state, { role: "user", content: resultsFor(pending, results, reason) })
}
