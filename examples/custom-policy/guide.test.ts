/**
 * The guide "Property-test a schedule" stays true: it quotes this example's
 * files verbatim, and the counterexample it prints is what the law prints.
 */
import { Laws } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { firstDraft } from "./firstDraft.js"
import { budget, settings } from "./policy.js"

const root = path.resolve(import.meta.dirname, "../..")
const guide = fs.readFileSync(path.join(root, "docs/property-test-a-schedule.md"), "utf8")

describe("docs/property-test-a-schedule.md", () => {
  it("quotes policy.ts, its laws, the first draft and its test verbatim", () => {
    const quoted = Array.from(guide.matchAll(/<!-- sample: (\S+) -->\n```ts\n([\s\S]*?)```/g), (match) => {
      assert.strictEqual(match[2], fs.readFileSync(path.join(root, match[1]!), "utf8"), match[1])
      return match[1]
    })
    assert.deepStrictEqual(quoted, [
      "examples/custom-policy/policy.ts",
      "examples/custom-policy/custom-policy.test.ts",
      "examples/custom-policy/firstDraft.ts",
      "examples/custom-policy/firstDraft.test.ts"
    ])
  })

  it.effect("prints the counterexample the law gives for seed 7", () =>
    Effect.gen(function* () {
      const printed = /```text\n([\s\S]*?)\n```/.exec(guide)?.[1]
      const violation = yield* Effect.flip(
        Laws.check(Laws.honorsRetryAfter, { policy: firstDraft, settings, budget }, { seed: 7 })
      )
      assert.strictEqual(printed, violation.message)
    })
  )
})
