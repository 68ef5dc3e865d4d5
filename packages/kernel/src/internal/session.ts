import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as EventBus from "../EventBus.js"
import * as KernelEvent from "../KernelEvent.js"
import * as Metrics from "../Metrics.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as Pricing from "../Pricing.js"
import * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
import type * as RunOutcome from "../RunOutcome.js"
import type * as SessionApi from "../Session.js"
import * as Settings from "../Settings.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Toolbox from "../Toolbox.js"

/** How a run ends: a status and, when an error caused it, the error. */
interface Ending {
  readonly status: RunOutcome.RunStatus
  readonly error?: ModelError.ModelError | undefined
}

/** Mutable figures of one run. Only the run's own fiber touches them. */
interface RunState {
  readonly runId: string
  readonly startedAt: number
  turns: number
  maxPerCall: number
  usage: ModelProvider.Usage
  cost: number | null
  reductions: number
  finalText: string
  readonly unpriced: Set<string>
}

const PREVIEW_CHARS = 2_000

const cutShort = (call: Content.ToolUseBlock): Content.ToolResultBlock =>
  Content.toolResult(call.id, "The run's wall-clock bound was reached before this tool returned.", true)

const describeDefect = (defect: unknown): string =>
  defect instanceof Error ? defect.message || defect.name : typeof defect === "string" ? defect : String(defect)

const fatalStatus = (category: ModelError.Category): RunOutcome.RunStatus =>
  category === "auth_error" ? "auth_error" : category === "quota_exceeded" ? "quota_exceeded" : "invalid_request"

let sessionCounter = 0

/** @internal */
export const make = (
  options: SessionApi.Options
): Effect.Effect<SessionApi.Session, never, ModelProvider.ModelProvider> =>
  Effect.gen(function* () {
    const provider = yield* ModelProvider.ModelProvider
    const toolbox = Option.getOrElse(yield* Effect.serviceOption(Toolbox.Toolbox), () => Toolbox.empty)
    const contextProvider = Option.getOrElse(
      yield* Effect.serviceOption(ContextProvider.ContextProvider),
      () => ContextProvider.defaultProvider
    )
    const bus = yield* Option.match(yield* Effect.serviceOption(EventBus.EventBus), {
      onNone: () => EventBus.make(),
      onSome: Effect.succeed
    })
    const settings = options.settings ?? Settings.defaults
    const budget = yield* Option.match(yield* Effect.serviceOption(RetryBudget.RetryBudget), {
      onNone: () => RetryBudget.fixed(settings.max_session_retries),
      onSome: Effect.succeed
    })
    const policy = options.policy ?? RetryPolicy.fromSettings(settings)
    const models = [options.model, ...settings.fallback_models.filter((model) => model !== options.model)]
    const toolConcurrency = options.toolConcurrency ?? 1
    const metrics = options.metrics ?? true
    const semaphore = yield* Effect.makeSemaphore(1)
    const id = options.id ?? `session-${++sessionCounter}`
    // The full history is never reduced; the working context is what requests are built from.
    // Both are mutated only by the run holding the semaphore, and copied on read.
    const transcript: Array<Content.Message> = [...(options.history ?? [])]
    let context: Array<Content.Message> = [...(options.history ?? [])]
    let runCounter = 0

    const publish = bus.publish
    const withBus = <A>(effect: Effect.Effect<A>) => Effect.provideService(effect, EventBus.EventBus, bus)
    const append = (message: Content.Message) => {
      transcript.push(message)
      context.push(message)
    }

    const checkBounds = (run: RunState, now: number, extraMillis: number): Ending | undefined => {
      if (settings.max_wall_clock_ms !== undefined && now + extraMillis - run.startedAt >= settings.max_wall_clock_ms)
        return { status: "wall_clock_exceeded" }
      if (settings.max_cost_usd !== undefined && run.cost !== null && run.cost >= settings.max_cost_usd)
        return { status: "cost_exceeded" }
      return undefined
    }

    /** Runs an effect within the run's wall-clock bound, if one is set; `None` when the bound cut it short. */
    const withinDeadline = <A, E>(run: RunState, effect: Effect.Effect<A, E>): Effect.Effect<Option.Option<A>, E> =>
      settings.max_wall_clock_ms === undefined
        ? Effect.map(effect, Option.some)
        : Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const left = run.startedAt + (settings.max_wall_clock_ms ?? 0) - now
            return left <= 0 ? Effect.succeedNone : Effect.timeoutOption(effect, Duration.millis(left))
          })

    const account = (run: RunState, response: ModelProvider.ModelResponse, model: string) =>
      Effect.gen(function* () {
        run.usage = ModelProvider.addUsage(run.usage, response.usage)
        const cost = Pricing.costFor(settings.prices, model, response.usage)
        if (Option.isSome(cost)) run.cost = (run.cost ?? 0) + cost.value
        else if (settings.max_cost_usd !== undefined && !run.unpriced.has(model)) {
          run.unpriced.add(model)
          yield* publish({
            type: "warning",
            message: `no price for model "${model}" in settings.prices: max_cost_usd does not count its calls`
          })
        }
      })

    const reduceContext = (run: RunState, turn: number, error: ModelError.ContextLengthExceeded) =>
      Effect.gen(function* () {
        const before = TokenEstimate.messages(context)
        const target = ContextProvider.targetFor(before, error)
        const reduced = yield* contextProvider.reduce(context, { estimatedTokens: before, targetTokens: target })
        if (Option.isNone(reduced)) return Option.some<Ending>({ status: "context_exhausted", error })
        const after = TokenEstimate.messages(reduced.value)
        if (after >= before) return Option.some<Ending>({ status: "context_exhausted", error })
        context = [...reduced.value]
        yield* publish({ type: "context_reduced", turn, before, after, target, reductions: run.reductions })
        return Option.none<Ending>()
      })

    /**
     * One model call with everything that can happen to it: bounds, retries
     * under the policy and the session budget, fallback along the chain, and
     * context reduction. Retries never advance the turn counter.
     */
    const callModel = (run: RunState, turn: number) =>
      Effect.gen(function* () {
        let modelIndex = 0
        let scheduleState: unknown = policy.initial
        let retries = 0
        let attempt = 0
        let overflow: ModelError.ContextLengthExceeded | undefined
        while (true) {
          const bound = checkBounds(run, yield* Clock.currentTimeMillis, 0)
          if (bound !== undefined) return Either.left(bound)
          if (overflow !== undefined) {
            const failed = yield* reduceContext(run, turn, overflow)
            if (Option.isSome(failed)) return Either.left(failed.value)
            overflow = undefined
          }
          const model = models[modelIndex] ?? options.model
          // A snapshot: the request must not change when the context is appended to later.
          const messages = yield* contextProvider.assemble(context.slice())
          const tools = yield* withBus(toolbox.definitions)
          const request: ModelProvider.ModelRequest = {
            model,
            messages,
            tools,
            ...(options.system !== undefined ? { system: options.system } : {}),
            ...(options.maxOutputTokens !== undefined ? { max_output_tokens: options.maxOutputTokens } : {})
          }
          attempt++
          yield* publish({
            type: "model_request",
            turn,
            model,
            attempt,
            messages: messages.length,
            estimated_tokens: TokenEstimate.request(request),
            tools: tools.length
          })
          const sentAt = yield* Clock.currentTimeMillis
          const called = yield* withinDeadline(
            run,
            Effect.either(
              Effect.suspend(() => provider.generate(request)).pipe(
                // A provider that throws or dies is a bug, not a transport error: typed, never retried.
                Effect.catchAllDefect((defect) =>
                  Effect.fail(
                    new ModelError.Unknown({
                      provider: provider.name,
                      model,
                      message: `the provider failed unexpectedly: ${describeDefect(defect)}`
                    })
                  )
                ),
                // Every loop span has a fixed name; a captured call-site stack trace per span was
                // the largest single cost of a step in profiles, and tells nothing new.
                Effect.withSpan("agent_kernel.model_call", {
                  attributes: { model, attempt, turn },
                  captureStackTrace: false
                })
              )
            )
          )
          if (Option.isNone(called)) return Either.left<Ending>({ status: "wall_clock_exceeded" })
          const result = called.value
          if (Either.isRight(result)) {
            yield* budget.recordSuccess
            const response = result.right
            yield* publish({
              type: "model_response",
              turn,
              model,
              stop_reason: response.stop_reason,
              usage: response.usage,
              duration_ms: (yield* Clock.currentTimeMillis) - sentAt
            })
            return Either.right({ response, request })
          }
          const error = result.left
          switch (ModelError.reactionOf(error.category)) {
            case "fatal":
              return Either.left<Ending>({ status: fatalStatus(error.category), error })
            case "surface":
              yield* publish({ type: "content_filtered", turn, model, message: error.message, partial_text: "" })
              return Either.left<Ending>({ status: "content_filtered", error })
            case "fail":
              return Either.left<Ending>({ status: "failed", error })
            case "reduce_context": {
              run.reductions++
              if (run.reductions > settings.max_context_reductions || error._tag !== "ContextLengthExceeded")
                return Either.left<Ending>({ status: "context_exhausted", error })
              overflow = error
              continue
            }
            case "retry": {
              const now = yield* Clock.currentTimeMillis
              const step = ModelError.isRetryable(error)
                ? yield* RetryPolicy.step(policy, now, error, scheduleState)
                : { delay: Option.none(), state: scheduleState }
              // Whatever the policy says, never sooner than the server asked.
              const delay = Option.map(step.delay, (d) =>
                error.retryAfter === undefined ? d : Duration.max(d, error.retryAfter)
              )
              const delayMs = Option.match(delay, { onNone: () => 0, onSome: Duration.toMillis })
              if (Option.isNone(delay) || delayMs > settings.max_retry_wait_ms) {
                if (modelIndex + 1 >= models.length) return Either.left<Ending>({ status: "retries_exhausted", error })
                // A fallback step is charged like a retry, except after an error the server said not to
                // retry: non-retryable errors never charge the budget.
                if (ModelError.isRetryable(error) && !(yield* budget.tryAcquire))
                  return Either.left<Ending>({ status: "retry_budget_exhausted", error })
                const to = models[modelIndex + 1] ?? model
                const spent = yield* budget.snapshot
                yield* publish({
                  type: "fallback",
                  turn,
                  from: model,
                  to,
                  category: error.category,
                  session_retries_used: spent.used,
                  session_retries_left: spent.remaining
                })
                // The chain continues the same call: its retry count, its attempts and its backoff
                // carry on, so a fallback can never reset the per-call cap.
                modelIndex++
                continue
              }
              const bound = checkBounds(run, now, delayMs)
              if (bound !== undefined) return Either.left<Ending>({ ...bound, error })
              if (!(yield* budget.tryAcquire)) return Either.left<Ending>({ status: "retry_budget_exhausted", error })
              retries++
              run.maxPerCall = Math.max(run.maxPerCall, retries)
              scheduleState = step.state
              if (error.midStream === true) {
                yield* publish({ type: "stream_restarted", turn, model, category: error.category })
              }
              const retryAfterMs = error.retryAfter === undefined ? null : Duration.toMillis(error.retryAfter)
              const spent = yield* budget.snapshot
              yield* publish({
                type: "retry_scheduled",
                turn,
                model,
                category: error.category,
                message: error.message,
                attempt: retries,
                session_retries_used: spent.used,
                session_retries_left: spent.remaining,
                delay_ms: delayMs,
                retry_after_ms: retryAfterMs,
                source: retryAfterMs !== null && retryAfterMs >= delayMs ? "retry_after" : "backoff"
              })
              if (metrics) yield* Metric.increment(Metric.tagged(Metrics.retries, "category", error.category))
              yield* Effect.sleep(Duration.millis(delayMs))
            }
          }
        }
      })

    const invokeTool = (turn: number, call: Content.ToolUseBlock) =>
      Effect.gen(function* () {
        yield* publish({ type: "tool_call_started", turn, id: call.id, name: call.name })
        const startedAt = yield* Clock.currentTimeMillis
        const result = yield* withBus(toolbox.invoke(call)).pipe(
          // The toolbox contract says invoke never fails; a broken toolbox still must not end the session.
          Effect.catchAllCause((cause) =>
            Effect.succeed(
              Content.toolResult(call.id, `Tool "${call.name}" failed unexpectedly: ${Cause.pretty(cause)}`, true)
            )
          ),
          Effect.withSpan("agent_kernel.tool_call", { attributes: { tool: call.name, turn }, captureStackTrace: false })
        )
        const block = result.tool_use_id === call.id ? result : { ...result, tool_use_id: call.id }
        yield* publish({
          type: "tool_result",
          turn,
          id: call.id,
          name: call.name,
          is_error: block.is_error,
          duration_ms: (yield* Clock.currentTimeMillis) - startedAt,
          preview: block.content.slice(0, PREVIEW_CHARS)
        })
        return block
      })

    const turnLoop = (run: RunState) =>
      Effect.gen(function* () {
        while (true) {
          if (run.turns >= settings.max_turns) return { status: "max_turns" } satisfies Ending
          run.turns++
          const turn = run.turns
          if (metrics) yield* Metric.increment(Metrics.turns)
          const ending = yield* Effect.gen(function* () {
            yield* publish({ type: "turn_started", turn })
            const called = yield* callModel(run, turn)
            if (Either.isLeft(called)) return called.left
            const { request, response } = called.right
            const message: Content.Message = { role: "assistant", content: response.content }
            append(message)
            yield* account(run, response, request.model)
            yield* bus.modelResponded(response, { runId: run.runId, turn, request })
            const text = Content.textOf(message)
            if (text.length > 0) run.finalText = text
            if (response.stop_reason === "content_filtered") {
              yield* publish({
                type: "content_filtered",
                turn,
                model: request.model,
                message: "the provider's content filter stopped the response",
                partial_text: text
              })
              yield* publish({ type: "turn_ended", turn, stop_reason: response.stop_reason, tool_calls: 0 })
              return { status: "content_filtered" } satisfies Ending
            }
            const calls = Content.toolUses(message)
            if (calls.length > 0) {
              const results = new Map<string, Content.ToolResultBlock>()
              const finished = yield* withinDeadline(
                run,
                Effect.forEach(calls, (call) => Effect.map(invokeTool(turn, call), (r) => results.set(call.id, r)), {
                  concurrency: toolConcurrency,
                  discard: true
                })
              )
              append({ role: "user", content: calls.map((call) => results.get(call.id) ?? cutShort(call)) })
              if (Option.isNone(finished)) return { status: "wall_clock_exceeded" } satisfies Ending
            }
            yield* publish({ type: "turn_ended", turn, stop_reason: response.stop_reason, tool_calls: calls.length })
            return calls.length === 0 ? ({ status: "completed" } satisfies Ending) : undefined
          }).pipe(Effect.withSpan("agent_kernel.turn", { attributes: { turn }, captureStackTrace: false }))
          if (ending !== undefined) return ending
        }
      })

    const outcome = (run: RunState, ending: Ending) =>
      Effect.gen(function* () {
        const wall = (yield* Clock.currentTimeMillis) - run.startedAt
        const session = yield* budget.snapshot
        const retries = { max_per_call: run.maxPerCall, session_total: session.used }
        const result: RunOutcome.RunOutcome = {
          run_id: run.runId,
          status: ending.status,
          ...(ending.error !== undefined ? { error: ending.error } : {}),
          turns: run.turns,
          retries,
          usage: run.usage,
          cost_usd: run.cost,
          wall_ms: wall,
          context_reductions: run.reductions,
          final_text: run.finalText,
          history: [...transcript]
        }
        yield* publish({
          type: "run_ended",
          run_id: run.runId,
          status: ending.status,
          turns: run.turns,
          retries,
          usage: run.usage,
          cost_usd: run.cost,
          wall_ms: wall,
          error: ending.error === undefined ? null : KernelEvent.summarize(ending.error)
        })
        if (metrics) yield* Metric.increment(Metric.tagged(Metrics.runs, "status", ending.status))
        return result
      })

    // An interrupted run still leaves a valid history: every tool_use gets a tool_result.
    // The toolbox then releases what the run may have left running.
    const closeInterrupted = (run: RunState) =>
      Effect.gen(function* () {
        if (toolbox.onRunInterrupted !== undefined) yield* withBus(toolbox.onRunInterrupted)
        answerPending("The run was interrupted before this tool returned.")
        yield* outcome(run, { status: "interrupted" })
      })

    /** Gives every tool_use of a trailing assistant message an error tool_result. */
    const answerPending = (reason: string) => {
      const last = transcript[transcript.length - 1]
      const pending = last?.role === "assistant" ? Content.toolUses(last) : []
      if (pending.length > 0)
        append({ role: "user", content: pending.map((call) => Content.toolResult(call.id, reason, true)) })
    }

    const runOnce = (input: string | Content.Message): Effect.Effect<RunOutcome.RunOutcome> =>
      Effect.gen(function* () {
        const run: RunState = {
          runId: `${id}/run-${++runCounter}`,
          startedAt: yield* Clock.currentTimeMillis,
          turns: 0,
          maxPerCall: 0,
          usage: ModelProvider.emptyUsage,
          cost: null,
          reductions: 0,
          finalText: "",
          unpriced: new Set()
        }
        const message = typeof input === "string" ? Content.userText(input) : input
        return yield* Effect.gen(function* () {
          append(message)
          yield* publish({
            type: "run_started",
            run_id: run.runId,
            model: options.model,
            input: Content.textOf(message)
          })
          const ending = yield* turnLoop(run).pipe(
            // A defect in a plugged-in service (a toolbox's definitions, a context provider) still
            // ends the run with a status, a run_ended event and a valid history.
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.failCause(cause)
                : Effect.sync((): Ending => {
                    answerPending("The run failed before this tool returned.")
                    return {
                      status: "failed",
                      error: new ModelError.Unknown({
                        provider: "agent-kernel",
                        model: options.model,
                        message: `the run failed unexpectedly: ${describeDefect(Cause.squash(cause))}`
                      })
                    }
                  })
            )
          )
          return yield* outcome(run, ending)
        }).pipe(Effect.onInterrupt(() => closeInterrupted(run)))
      })

    return {
      id,
      settings,
      run: (input) =>
        semaphore
          .withPermits(1)(runOnce(input))
          .pipe(Effect.withSpan("agent_kernel.run", { attributes: { session: id }, captureStackTrace: false })),
      history: Effect.sync(() => [...transcript]),
      context: Effect.sync(() => [...context]),
      events: bus.events,
      subscribe: bus.subscribe,
      retryBudget: budget.snapshot
    } satisfies SessionApi.Session
  })
