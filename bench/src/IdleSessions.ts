/**
 * What a session keeps alive: the heap still reachable (after full
 * collections) per session, for 1,000 and 10,000 sessions that have not run,
 * and for 1,000 sessions that each hold a 10-turn history. Beside them, the
 * same 10-turn history as plain objects: the data itself, which no loop can
 * keep for less.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Goal from "./Goal.js"
import * as KernelLoop from "./KernelLoop.js"
import * as Measure from "./Measure.js"
import * as PlainLoop from "./PlainLoop.js"
import * as Report from "./Report.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly rounds: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = { full: { rounds: 3 }, quick: { rounds: 1 } }

const toolSteps = 9 // ten turns: nine tool steps, then the answer

const range = (count: number) => Array.from({ length: count }, (_, index) => index)

/** The bytes that what `make` returns keeps reachable. */
const retained = async (make: () => Promise<ReadonlyArray<unknown>>): Promise<number> => {
  const before = Measure.retainedHeap()
  const held = await make()
  const after = Measure.retainedHeap()
  return held.length === 0 ? Number.NaN : after - before
}

interface Case {
  readonly name: string
  readonly count: number
  readonly make: () => Promise<ReadonlyArray<unknown>>
}

const idle = (count: number): Case => ({
  name: "agent-kernel, idle sessions",
  count,
  make: () => Effect.runPromise(Effect.forEach(range(count), () => KernelLoop.idle(toolSteps, { observed: false })))
})
const idle1k = idle(1_000)
const idle10k = idle(10_000)
const withHistory: Case = {
  name: "agent-kernel, sessions holding a 10-turn history",
  count: 1_000,
  make: () =>
    Effect.runPromise(Effect.forEach(range(1_000), () => KernelLoop.runEffect(toolSteps, { observed: false })))
}
const plainHistory: Case = {
  name: "the same 10-turn history as plain objects",
  count: 1_000,
  make: () => Promise.all(range(1_000).map(() => PlainLoop.run(toolSteps)))
}

/**
 * Measures, prints the table and returns the verdicts on the memory goals.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const cases = [idle1k, idle10k, withHistory, plainHistory]
  const samples = await Measure.interleave(
    cases.map((each) => ({ name: each.name, samples: plan.rounds, measure: () => retained(each.make) })),
    plan.rounds
  )
  const bytes = new Map(cases.map((each, index) => [each, Measure.median(samples[index] ?? [])]))
  const perSession = (each: Case) => (bytes.get(each) ?? Number.NaN) / 1_024 / each.count
  console.log(`\nRetained heap, after full collections (median of ${plan.rounds} interleaved rounds)`)
  console.log(
    Report.table(
      ["case", "sessions", "retained MB", "KB/session"],
      cases.map((each) => [
        each.name,
        each.count.toLocaleString("en-US"),
        Report.figure((bytes.get(each) ?? Number.NaN) / 1_024 / 1_024),
        Report.figure(perSession(each))
      ])
    )
  )
  return [
    Goal.judge(Goal.make("idle session, 1,000 sessions", "less than", 8, "KB", "issue 9"), perSession(idle1k)),
    Goal.judge(Goal.make("idle session, 10,000 sessions", "less than", 8, "KB", "issue 9"), perSession(idle10k)),
    Goal.judge(
      Goal.make("idle session flat: 10,000 ÷ 1,000", "at most", 1.2, "x", "issue 9"),
      Goal.ratio(perSession(idle10k), perSession(idle1k))
    )
  ]
}
