/**
 * The vitest global setup of the `unit` project (vitest.config.ts): the
 * agent CLI's bundle is rebuilt, if stale, once before any test file runs,
 * so that files running at once never build it together (each file's own
 * `ensureBundle` then finds it fresh).
 */
import { ensureBundle } from "./testBundle.js"

/** Builds the bundle if a source changed since it was built. */
export default async function setup(): Promise<void> {
  await ensureBundle()
}
