import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Compiled from "../src/Compiled.js"

// The kernel must run as the JavaScript it ships as, like everything it is compared with.
describe("Compiled.build", () => {
  it("bundles the workspace packages without keepNames and leaves installed packages external", async () => {
    const bundle = fs.readFileSync(await Compiled.build("KernelLoop.ts"), "utf8")
    expect(bundle).toMatch(/from "effect\/Effect"/)
    expect(bundle).not.toMatch(/from "@agent-kernel\//)
    // The kernel's own code is inside (its event bus's service key), and the benchmark's own modules.
    expect(bundle).toContain('"@agent-kernel/kernel/EventBus"')
    expect(bundle).toContain('"Echoes its input."')
    expect(bundle).not.toMatch(/__name\(/)
  })
})
