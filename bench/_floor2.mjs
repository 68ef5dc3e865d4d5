import * as Effect from "effect/Effect"
const T = 10, L = 5
const bare = (sleep) => Effect.gen(function* () { const h = []; for (let t = 0; t < T; t++) { yield* sleep; h.push({ t }); if (t < T - 1) h.push(yield* Effect.sync(() => ({ r: t }))) } return h })
const spanned = (sleep) => Effect.gen(function* () { const h = []; for (let t = 0; t < T; t++) { yield* Effect.withSpan(sleep, "model"); h.push({ t }); if (t < T - 1) h.push(yield* Effect.withSpan(Effect.sync(() => ({ r: t })), "tool")) } return h }).pipe(Effect.withSpan("run"))
const cases = { bare, spanned }
for (const N of [1, 10, 100, 1000]) for (const k in cases) {
  const e = cases[k](Effect.sleep(L))
  const run = () => Effect.runPromise(Effect.forEach(Array.from({ length: N }), () => e, { concurrency: "unbounded", discard: true }))
  const reps = Math.max(3, Math.round(3000 / N))
  for (let w = 0; w < reps; w++) await run()
  const u0 = process.cpuUsage(); for (let r = 0; r < reps; r++) await run(); const u = process.cpuUsage(u0)
  console.log(`N=${N} ${k} cpu ${((u.user + u.system) / (N * T * reps)).toFixed(1)} µs/session-turn`)
}
