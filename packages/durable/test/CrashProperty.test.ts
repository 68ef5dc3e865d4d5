/**
 * The in-process crash property: for arbitrary fault scripts (transient errors, some
 * with retry-after, tool calls of an idempotent and a non-idempotent tool), a crash injected at
 * EVERY journal write of the run, then recovery by a fresh engine over the same database, ends
 * with the crash-free run's outcome: the same status, retry figures and history, apart from the
 * tool results of the calls that were in flight at the crash (answered "unknown", or re-run for
 * the idempotent tool).
 *
 * The crash is the engine's `beforeWrite` hook: at write N it stops the run's fiber there and the
 * test tears the engine down under it (the writes before N are in the database, N and later are
 * not), as the death of the process would. Time is the TestClock.
 */
import { DurableSessions, Engine, type SqlEngine } from "@agent-kernel/durable"
import { Content, ModelError, ModelProvider, type RunOutcome, Settings, Toolbox } from "@agent-kernel/kernel"
import { Arbitraries, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as TestClock from "effect/testing/TestClock"
import * as Sqlite from "../src/internal/sqlite.js"

/** One turn: the faults before its answer, and the tool calls of its answer (the last turn answers text). */
interface Turn {
  readonly faults: ReadonlyArray<ModelError.ModelError>
  readonly tools: ReadonlyArray<"write" | "read">
}

/** One of two arbitraries, each as likely. */
const either = <A>(left: Arbitrary.Arbitrary<A>, right: Arbitrary.Arbitrary<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(Arbitrary.all([Arbitrary.schema(Schema.Boolean), left, right]), ([first, l, r]) => (first ? l : r))

const turnArbitrary: Arbitrary.Arbitrary<Turn> = Arbitrary.all({
  faults: Arbitrary.array(
    either(
      // Half of them a 429 with a retry-after: a durable wait, its clock and its wake-up journaled.
      Arbitrary.map(Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 }))), (ms) =>
        ModelError.make("rate_limited", {
          provider: "p",
          model: "m",
          message: "429",
          status: 429,
          retryAfter: Duration.millis(ms)
        })
      ),
      Arbitraries.transientError({ retryAfter: false, notRetryable: false, midStream: false })
    ),
    { maxLength: 2 }
  ),
  tools: Arbitrary.array(
    Arbitrary.map(Arbitrary.schema(Schema.Boolean), (write) => (write ? ("write" as const) : ("read" as const))),
    { maxLength: 2 }
  )
})

const scriptArbitrary = Arbitrary.array(turnArbitrary, { minLength: 1, maxLength: 3 })

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  max_session_retries: 100,
  session_retries_refill: false
}

/**
 * The provider: its answer is a function of the turn and the attempt, as a deterministic provider's
 * would be, so a call re-sent after a crash gets the answer it got before. `attempts` holds the
 * calls made for each turn; a recovery starts it from the journal's completed calls.
 */
const providerOf = (script: ReadonlyArray<Turn>, attempts: Map<number, number>) =>
  ModelProvider.fromGenerate("p", (request) =>
    Effect.suspend((): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> => {
      const turn = request.messages.filter((message) => message.role === "assistant").length + 1
      const attempt = (attempts.get(turn) ?? 0) + 1
      attempts.set(turn, attempt)
      const plan = script[turn - 1]
      const fault = plan?.faults[attempt - 1]
      if (fault !== undefined) return Effect.fail(fault)
      const usage = { input_tokens: 1, output_tokens: 1 }
      if (plan === undefined || turn === script.length || plan.tools.length === 0)
        return Effect.succeed({ model: "m", content: [Content.text(`done ${turn}`)], stop_reason: "end_turn", usage })
      return Effect.succeed({
        model: "m",
        content: plan.tools.map((name, i) => Content.toolUse(`t${turn}c${i}`, name, { turn, i })),
        stop_reason: "tool_use",
        usage
      })
    })
  )

const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `${call.name} ${JSON.stringify(call.input)}`))
}

/** A process: durable sessions on the light engine over the database in context. */
const processLayer = (script: ReadonlyArray<Turn>, attempts: Map<number, number>, options: SqlEngine.Options) =>
  DurableSessions.layer({ model: "m", settings, idempotentTools: ["read"] }).pipe(
    Layer.provideMerge(Engine.layerSql(options)),
    Layer.provide(Layer.succeed(ModelProvider.ModelProvider, providerOf(script, attempts))),
    Layer.provide(Toolbox.layer(toolbox))
  )

interface Attempt {
  /** The outcome, or none when the run crashed first. */
  readonly outcome: Option.Option<RunOutcome.RunOutcome>
  readonly writes: ReadonlyArray<SqlEngine.Write>
}

/** Runs the session's first run in a process that dies before its journal write `crashAt` (never if undefined). */
const runUntil = (script: ReadonlyArray<Turn>, crashAt: number | undefined) =>
  Effect.gen(function* () {
    const writes: Array<SqlEngine.Write> = []
    // The run's outcome, or none when the process died first.
    const ended = yield* Deferred.make<Option.Option<RunOutcome.RunOutcome>>()
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      processLayer(script, new Map(), {
        beforeWrite: (write) =>
          Effect.suspend(() => {
            if (writes.length + 1 === crashAt)
              return Effect.andThen(Deferred.succeed(ended, Option.none()), Effect.never)
            writes.push(write)
            return Effect.void
          })
      }),
      scope
    )
    // The caller is a daemon: the death of a process is not its caller deciding to stop the run. It is
    // forked under the driver, so the waits of its run are the driver's to move the TestClock to.
    const caller = Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
      Effect.flatMap((outcome) => Deferred.succeed(ended, Option.some(outcome))),
      Effect.provide(context)
    )
    const outcome = yield* TestClockDriver.run(Effect.andThen(Effect.forkDetach(caller), Deferred.await(ended)))
    yield* Scope.close(scope, Exit.void)
    return { outcome, writes } satisfies Attempt
  })

/** The state recovery starts from: which model calls completed, which tool calls were in flight. */
const journalState = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const names = (yield* sql<{ readonly name: string }>`SELECT name FROM workflow_activities`).map((row) => row.name)
  const attempts = new Map<number, number>()
  for (const name of names) {
    const [kind, turn, attempt] = name.split("/")
    if (kind === "model") attempts.set(Number(turn), Math.max(attempts.get(Number(turn)) ?? 0, Number(attempt)))
  }
  const claimed = yield* sql<{ readonly call_id: string }>`SELECT call_id FROM agent_tool_calls`
  // A claim is "turn/n/id"; its activity "tool/turn/n/id" has no result when the call was in flight.
  const inFlight = claimed
    .filter((claim) => !names.includes(`tool/${claim.call_id}`))
    .map((claim) => claim.call_id.split("/")[2]!)
  return { attempts, inFlight }
})

/**
 * A fresh process on the same database finishes the run: its outcome, or, when the run had
 * recorded its end in the session store before the crash (nothing left to resume), the session's
 * state as stored then.
 */
const recover = (script: ReadonlyArray<Turn>, attempts: Map<number, number>) =>
  Effect.gen(function* () {
    const sessions = yield* DurableSessions.DurableSessions
    const resumed = yield* TestClockDriver.run(sessions.resume("s"))
    if (Option.isSome(resumed)) {
      const outcome = resumed.value
      return { figures: Option.some(figures(outcome)), history: outcome.history, used: outcome.retries.session_total }
    }
    const state = Option.getOrThrow(yield* sessions.state("s"))
    return { figures: Option.none(), history: state.history, used: state.budget.used }
  }).pipe(Effect.provide(processLayer(script, attempts, {})), Effect.scoped)

/** The history with the results of `inFlight` calls blanked: the only part a crash may change. */
const comparable = (history: Content.History, inFlight: ReadonlyArray<string>) =>
  history.map((message) => ({
    ...message,
    content: message.content.map((block) =>
      block.type === "tool_result" && inFlight.includes(block.tool_use_id)
        ? { ...block, content: "", is_error: false }
        : block
    )
  }))

const toolOf = (script: ReadonlyArray<Turn>, id: string) => {
  const [, turn, i] = /^t(\d+)c(\d+)$/.exec(id) ?? []
  return script[Number(turn) - 1]?.tools[Number(i)] ?? "unknown"
}

const figures = (outcome: RunOutcome.RunOutcome) => ({
  status: outcome.status,
  turns: outcome.turns,
  retries: outcome.retries
})

/** A fresh in-memory database and TestClock for each process's lifetime of a case. */
const database = Sqlite.layer({ filename: ":memory:" })

describe("crash at every journal write", () => {
  it("after recovery, the outcome is the crash-free run's, apart from the declared in-flight tool results", async () => {
    const coverage = {
      scripts: 0,
      crashes: 0,
      byKind: new Map<string, number>(),
      retryAfterWaits: 0,
      scriptsWithTools: 0,
      inFlightUnknown: 0,
      writeCalls: 0,
      scriptsWithWriteCalls: 0,
      endedBeforeCrash: 0
    }
    const property = (script: ReadonlyArray<Turn>) =>
      Effect.gen(function* () {
        const clean = yield* runUntil(script, undefined).pipe(
          Effect.provide(database),
          Effect.provide(TestClock.layer())
        )
        const expected = Option.getOrThrow(clean.outcome)
        coverage.scripts++
        if (script.some((turn) => turn.tools.length > 0)) coverage.scriptsWithTools++
        coverage.retryAfterWaits += clean.writes.filter((write) => write.kind === "clock").length
        const writeCalls = clean.writes.filter(
          (write) =>
            write.kind === "activity" &&
            write.name.startsWith("tool/") &&
            toolOf(script, write.name.split("/").at(-2)!) === "write"
        ).length
        coverage.writeCalls += writeCalls
        if (writeCalls > 0) coverage.scriptsWithWriteCalls++
        for (let n = 1; n <= clean.writes.length; n++) {
          const kind = clean.writes[n - 1]!.kind
          const name = clean.writes[n - 1]!.name.split("/")[0]!
          const label =
            kind !== "activity"
              ? kind
              : name !== "tool"
                ? `activity ${name}`
                : // tool/<turn>/<n>/<id>/<attempt>, the id t<turn>c<i>: which tool it was.
                  `activity tool ${toolOf(script, clean.writes[n - 1]!.name.split("/").at(-2)!)}`
          yield* Effect.gen(function* () {
            const crashed = yield* runUntil(script, n)
            expect(Option.isNone(crashed.outcome), `write ${n}: the run ended before its crash`).toBe(true)
            const state = yield* journalState
            const recovered = yield* recover(script, state.attempts)
            coverage.crashes++
            coverage.byKind.set(label, (coverage.byKind.get(label) ?? 0) + 1)
            const context = `crash before write ${n} (${label} ${clean.writes[n - 1]!.name}) of ${clean.writes.length}`
            if (Option.isSome(recovered.figures)) expect(recovered.figures.value, context).toEqual(figures(expected))
            else coverage.endedBeforeCrash++
            expect(recovered.used, context).toBe(expected.retries.session_total)
            expect(comparable(recovered.history, state.inFlight), context).toEqual(
              comparable(expected.history, state.inFlight)
            )
            // The in-flight results are declared: "unknown" for the write tool. (The read tool, idempotent,
            // claims nothing and runs again: its result is compared with the rest of the history.)
            for (const id of state.inFlight) {
              const result = recovered.history
                .flatMap((message) => message.content)
                .find((block) => block.type === "tool_result" && block.tool_use_id === id)
              const use = expected.history
                .flatMap((message) => message.content)
                .find((block) => block.type === "tool_use" && block.id === id)
              expect(use?.type === "tool_use" && use.name === "write", context).toBe(true)
              coverage.inFlightUnknown++
              expect(result?.type === "tool_result" ? result.content : "", context).toMatch(
                /unknown whether the tool finished/
              )
            }
          }).pipe(Effect.provide(database), Effect.provide(TestClock.layer()))
        }
        return true
      })
    const result = await Effect.runPromise(
      Arbitrary.checkEffect(scriptArbitrary, property, { runs: 12, seed: 13, maxShrinks: 3 })
    )
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
    // eslint-disable-next-line no-console
    console.log(
      `crash property: ${coverage.scripts} scripts (${coverage.scriptsWithTools} with tool calls, ` +
        `${coverage.retryAfterWaits} retry-after waits), ${coverage.crashes} crashes by write: ` +
        `${[...coverage.byKind].map(([kind, n]) => `${kind} ${n}`).join(", ")}; in-flight tool calls answered ` +
        `unknown ${coverage.inFlightUnknown} (${coverage.writeCalls} calls of the write tool, in ` +
        `${coverage.scriptsWithWriteCalls} scripts); ${coverage.endedBeforeCrash} crashes came after the run had recorded its end`
    )
    // The generator reached the interesting cases: waits, tool calls, and crashes inside each kind of step.
    expect(coverage.retryAfterWaits).toBeGreaterThanOrEqual(3)
    // A crash comes at every write, so every call of the write tool is cut off in flight at least once, and
    // at least 30 % of the scripts have such a call.
    expect(coverage.writeCalls).toBeGreaterThan(0)
    expect(coverage.inFlightUnknown).toBeGreaterThanOrEqual(coverage.writeCalls)
    expect(coverage.scriptsWithWriteCalls / coverage.scripts).toBeGreaterThanOrEqual(0.3)
    const kinds = [
      "execution",
      "activity model",
      "activity tool write",
      "activity tool read",
      "clock",
      "deferred",
      "status"
    ]
    for (const kind of kinds)
      expect(coverage.byKind.get(kind) ?? 0, `no crash at a ${kind} write`).toBeGreaterThanOrEqual(1)
  }, 600_000)
})
