/**
 * `on_exhausted: pause` in the loop: where a run would end with a status of `pause_on`, a runtime
 * that offers `Effects.pause` keeps it there, and the call's next attempt follows its resume, the
 * budget as it was unless the resume resets it. Without that seam (a plain session) the run ends
 * as it always did.
 */
import { Decision, EventBus, type KernelEvent, ModelError, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  base_delay_ms: 10,
  max_retries: 1,
  max_session_retries: 5,
  session_retries_refill: false,
  on_exhausted: "pause"
}

const rateLimited = ScriptedModel.rateLimited()

/** A session over `script`, its events recorded, its effects wrapped by `effects`. */
const sessionOf = (
  script: ReadonlyArray<ScriptedModel.Step>,
  events: Array<KernelEvent.KernelEvent>,
  effects?: (live: Session.Effects) => Session.Effects,
  overrides: Partial<Settings.Settings> = {}
) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(script)
    const session = yield* Session.make({
      model: "m",
      settings: { ...settings, ...overrides },
      metrics: false,
      effects
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          model.layer,
          Layer.succeed(Toolbox.Toolbox, Toolbox.empty),
          EventBus.layer([{ onEvent: (event) => Effect.sync(() => void events.push(event)) }])
        )
      )
    )
    return { session, model }
  })

/** A seam whose pause answers at once with `resumed`, recording each pause it is asked for. */
const pausing =
  (pauses: Array<Session.Pause>, resetBudget: (n: number) => boolean) =>
  (live: Session.Effects): Session.Effects => ({
    ...live,
    pause: (pause) =>
      Effect.sync(() => {
        pauses.push(pause)
        return { resetBudget: resetBudget(pauses.length), at: pause.at + 1_000 }
      })
  })

describe("on_exhausted: pause in the loop", () => {
  it.effect(
    "with on_exhausted fail, an attempt the seam says paused before pauses again and goes on; any other ends the run",
    () =>
      Effect.gen(function* () {
        const events: Array<KernelEvent.KernelEvent> = []
        const pauses: Array<Session.Pause> = []
        const asked: Array<Session.PausePoint> = []
        // A replay's seam: the pause at turn 1, attempt 2 is journaled; no other is.
        const replaying = (live: Session.Effects): Session.Effects => ({
          ...pausing(pauses, () => false)(live),
          pausedBefore: (where) =>
            Effect.sync(() => {
              asked.push(where)
              return where.turn === 1 && where.attempt === 2
            })
        })
        const { session, model } = yield* sessionOf([rateLimited, rateLimited, rateLimited], events, replaying, {
          on_exhausted: "fail"
        })
        const outcome = yield* TestClockDriver.run(session.run("go"))
        // Paused (and resumed) at attempt 2 as before; attempt 3 ends the run, as fail says.
        assert.deepStrictEqual(
          pauses.map((pause) => [pause.turn, pause.attempt]),
          [[1, 2]]
        )
        assert.deepStrictEqual(asked, [
          { turn: 1, attempt: 2 },
          { turn: 1, attempt: 3 }
        ])
        assert.strictEqual(outcome.status, "retries_exhausted")
        assert.strictEqual((yield* model.calls).length, 3)
        assert.deepStrictEqual(
          events.map((event) => event.type).filter((type) => type.startsWith("run_")),
          ["run_started", "run_paused", "run_resumed", "run_ended"]
        )
      })
  )

  it.effect("a plain session (no pause in its seam) ends as with fail: on_exhausted changes nothing there", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session } = yield* sessionOf([rateLimited, rateLimited], events)
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "retries_exhausted")
      assert.notInclude(
        events.map((event) => event.type),
        "run_paused"
      )
    })
  )

  it.effect("with a pause in the seam the run pauses, tells why, and goes on with the call's next attempt", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const pauses: Array<Session.Pause> = []
      const { session, model } = yield* sessionOf(
        [rateLimited, rateLimited, ScriptedModel.text("done")],
        events,
        pausing(pauses, () => false)
      )
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual((yield* model.calls).length, 3)
      assert.deepStrictEqual(
        pauses.map((pause) => [pause.turn, pause.attempt, pause.status, pause.error.category, pause.resumeAt]),
        [[1, 2, "retries_exhausted", "rate_limited", null]]
      )
      const paused = events.find((event) => event.type === "run_paused")
      const resumed = events.find((event) => event.type === "run_resumed")
      assert.deepInclude(paused, { reason: "retries_exhausted", turn: 1, attempt: 2, resume_at: null })
      assert.deepInclude(paused, { retries: { max_per_call: 1, session_total: 1 } })
      assert.deepInclude(resumed, { turn: 1, attempt: 2, reset_budget: false, paused_ms: 1_000 })
      // The retry used before the pause stays used.
      assert.strictEqual(outcome.retries.session_total, 1)
    })
  )

  it.effect("without a reset the next failure pauses again; a reset gives the call its retries back", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const pauses: Array<Session.Pause> = []
      const { session, model } = yield* sessionOf(
        // Paused after 2 attempts; 1 more, paused again; reset: a failure is retried, then done.
        [rateLimited, rateLimited, rateLimited, rateLimited, ScriptedModel.text("done")],
        events,
        pausing(pauses, (n) => n === 2)
      )
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual((yield* model.calls).length, 5)
      assert.deepStrictEqual(
        pauses.map((pause) => pause.attempt),
        [2, 3]
      )
      // After the reset the budget counts the one retry taken since.
      assert.strictEqual(outcome.retries.session_total, 1)
    })
  )

  it.effect("pause_on chooses which ends pause: a quota error pauses only when listed", () =>
    Effect.gen(function* () {
      const quota = ScriptedModel.error("quota_exceeded")
      const listed = yield* sessionOf(
        [quota, ScriptedModel.text("done")],
        [],
        pausing([], () => false)
      )
      assert.strictEqual((yield* TestClockDriver.run(listed.session.run("go"))).status, "completed")
      const unlisted = yield* sessionOf(
        [quota],
        [],
        pausing([], () => false),
        { pause_on: ["retries_exhausted"] }
      )
      assert.strictEqual((yield* TestClockDriver.run(unlisted.session.run("go"))).status, "quota_exceeded")
    })
  )

  it.effect("with fallback models the run pauses only once the chain is spent, and goes on with its last model", () =>
    Effect.gen(function* () {
      const pauses: Array<Session.Pause> = []
      const { session, model } = yield* sessionOf(
        [rateLimited, rateLimited, rateLimited, rateLimited, ScriptedModel.text("done")],
        [],
        pausing(pauses, () => false),
        { fallback_models: ["f"] }
      )
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        pauses.map((pause) => pause.attempt),
        [4]
      )
      assert.deepStrictEqual(
        (yield* model.requests).map((request) => request.model),
        ["m", "m", "f", "f", "f"]
      )
    })
  )

  it.effect("the time paused counts towards max_wall_clock_ms: a resume past it ends the run, nothing sent", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session, model } = yield* sessionOf(
        [rateLimited, rateLimited, ScriptedModel.text("never")],
        events,
        (live) => ({
          ...live,
          pause: (pause) => Effect.as(Effect.sleep("2 seconds"), { resetBudget: true, at: pause.at + 2_000 })
        }),
        { max_wall_clock_ms: 1_000 }
      )
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      assert.strictEqual((yield* model.calls).length, 2)
      assert.deepStrictEqual(
        events.map((event) => event.type).filter((type) => type.startsWith("run_")),
        ["run_started", "run_paused", "run_resumed", "run_ended"]
      )
    })
  )
})

describe("Decision.pauses and Decision.resumeAt", () => {
  const error = ModelError.make("quota_exceeded", {
    provider: "p",
    model: "m",
    message: "quota",
    retryAfter: Duration.seconds(90)
  })
  it("pauses only with on_exhausted pause and a status of pause_on", () => {
    const end = Decision.End({ status: "retry_budget_exhausted" })
    assert.isFalse(Decision.pauses(end, Settings.defaults))
    assert.isTrue(Decision.pauses(end, settings))
    assert.isFalse(Decision.pauses(end, { ...settings, pause_on: ["quota_exceeded"] }))
    assert.isFalse(Decision.pauses(Decision.End({ status: "auth_error" }), settings))
  })
  it("resume_at is set only by pause_resume_after_ms, and never sooner than the error's retry-after", () => {
    assert.isTrue(Option.isNone(Decision.resumeAt(error, 1_000, settings)))
    assert.deepStrictEqual(
      Decision.resumeAt(error, 1_000, { ...settings, pause_resume_after_ms: 1 }),
      Option.some(91_000)
    )
    assert.deepStrictEqual(
      Decision.resumeAt(error, 1_000, { ...settings, pause_resume_after_ms: 600_000 }),
      Option.some(601_000)
    )
  })
})
