import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")

describe("README", () => {
  it("the embedding example runs and completes after honouring the retry-after", () => {
    const output = execFileSync(path.join(root, "node_modules/.bin/tsx"), ["examples/embed.ts"], {
      cwd: root,
      encoding: "utf8"
    })
    assert.include(output, "retry in 1000 ms")
    assert.include(output, "completed: Hi! (1 retry)")
  })
})
