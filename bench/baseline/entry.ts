/**
 * The entry of the Effect 3 baseline bundle: the last agent-kernel on Effect 3 running the benchmark's
 * scenario (bench/src/KernelLoop.ts) through its public API, with its own copy of effect 3.22 inside.
 * `build.mjs` bundles it; the bundle runs beside the current kernel in one process.
 */
import * as Effect from "effect/Effect"
import * as KernelLoop from "../src/KernelLoop.js"

/** One run of `steps` steps in a new session. */
export const run = (steps: number, options: KernelLoop.Options): Promise<unknown> => KernelLoop.run(steps, options)

/** `sessions` sessions of `steps` steps each, all at once. */
export const runMany = (sessions: number, steps: number, options: KernelLoop.Options): Promise<void> =>
  Effect.runPromise(
    Effect.forEach(
      Array.from({ length: sessions }, (_, index) => index),
      () => KernelLoop.runEffect(steps, options),
      { concurrency: "unbounded", discard: true }
    )
  )
