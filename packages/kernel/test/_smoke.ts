import { RetryPolicy, Settings } from "@agent-kernel/kernel"
import { Simulator } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"

const program = Effect.gen(function* () {
  const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
  const sim = yield* Simulator.simulate(RetryPolicy.fromSettings(Settings.defaults), faults, { seed: 1 })
  console.log(Simulator.formatTimeline(sim.timeline))
  console.log(Simulator.formatOutcome(sim.outcome))
  const f2 = yield* Simulator.parseFaults("529,529,529,529,529,529,529,ok")
  const s2 = yield* Simulator.simulate(RetryPolicy.fromSettings(Settings.defaults), f2, { seed: 1, settings: { ...Settings.defaults, fallback_models: ["backup"] } })
  console.log(Simulator.formatTimeline(s2.timeline))
  console.log(Simulator.formatOutcome(s2.outcome))
  return sim
})
const t0 = Date.now()
const r = await Effect.runPromise(program)
console.log("sync ok", r.outcome.status, Date.now() - t0)
const t1 = Date.now()
for (let i = 0; i < 1000; i++) await Effect.runPromise(Effect.flatMap(Simulator.parseFaults("429:retry_after=2,529,529,ok"), (f) => Simulator.simulate(RetryPolicy.fromSettings(Settings.defaults), f, { seed: i })))
console.log("1000 runs ms", Date.now() - t1)
