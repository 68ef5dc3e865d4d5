import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Gate } from "../src/index.js"

const ask = (gate: Gate.Service, tool: string, input: unknown = {}, provider = "files") =>
  gate.decide({ provider, tool, input })

describe("Gate", () => {
  it.effect("allows everything by default", () =>
    Effect.gen(function* () {
      expect(yield* ask(Gate.allowAll, "anything")).toEqual(Gate.allow)
    })
  )

  it.effect("denies by tool name glob or RegExp, with the rule's reason", () =>
    Effect.gen(function* () {
      const gate = Gate.rules({ deny: [{ tool: "write_*", reason: "Read-only session." }, { tool: /^rm$/ }] })
      expect(yield* ask(gate, "write_file")).toEqual(Gate.deny("Read-only session."))
      expect(yield* ask(gate, "read_file")).toEqual(Gate.allow)
      expect(yield* ask(gate, "rm")).toEqual(Gate.deny("The call matches a deny rule (tool /^rm$/)."))
      expect(yield* ask(gate, "rmdir")).toEqual(Gate.allow)
    })
  )

  it.effect("matches argument patterns by path; non-strings as JSON", () =>
    Effect.gen(function* () {
      const gate = Gate.rules({
        deny: [
          { tool: "shell", arguments: { command: /\brm\s+-rf\b/ } },
          { tool: "http", arguments: { "request.url": /^http:/ }, reason: "Plain HTTP is not allowed." },
          { tool: "batch", arguments: { count: /^\d{4,}$/ } }
        ]
      })
      expect((yield* ask(gate, "shell", { command: "rm -rf /" }))._tag).toBe("Deny")
      expect((yield* ask(gate, "shell", { command: "ls" }))._tag).toBe("Allow")
      expect(yield* ask(gate, "http", { request: { url: "http://x" } })).toEqual(
        Gate.deny("Plain HTTP is not allowed.")
      )
      expect((yield* ask(gate, "http", { request: { url: "https://x" } }))._tag).toBe("Allow")
      expect((yield* ask(gate, "http", "not an object"))._tag).toBe("Allow")
      expect((yield* ask(gate, "batch", { count: 10000 }))._tag).toBe("Deny")
      expect((yield* ask(gate, "batch", { count: 10 }))._tag).toBe("Allow")
    })
  )

  it.effect("an allow list admits only what it names; deny wins over allow", () =>
    Effect.gen(function* () {
      const gate = Gate.rules({
        allow: [{ provider: "files" }, { tool: "search" }],
        deny: [{ provider: "files", tool: "delete" }]
      })
      expect((yield* ask(gate, "read", {}, "files"))._tag).toBe("Allow")
      expect((yield* ask(gate, "search", {}, "web"))._tag).toBe("Allow")
      expect(yield* ask(gate, "fetch", {}, "web")).toEqual(
        Gate.deny('Tool "fetch" with these arguments is not on the allow list.')
      )
      expect((yield* ask(gate, "delete", {}, "files"))._tag).toBe("Deny")
    })
  )
})
