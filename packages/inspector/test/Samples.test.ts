/**
 * The samples the README and docs/inspector.md quote, run: the inspector
 * mounted under a prefix beside an app's own routes, and the inspector alone
 * printing its address and token.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestConsole from "effect/testing/TestConsole"
import { ActionToken } from "../src/index.js"
import { InspectorServer } from "../src/node/index.js"
import { get } from "./support/http.js"
import * as Lab from "./support/lab.js"
import * as Mount from "./samples/mount.js"
import * as Standalone from "./samples/standalone.js"

const streamed: Lab.Scenario = { plan: { steps: [Lab.slowAnswer("Fine.", 0.2)] } }

describe("the documented samples", () => {
  it.live("mount.ts: the inspector under /inspector beside the app's routes, its links carrying the prefix", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      yield* lab.memory.run("s", "go")
      const context = yield* Layer.build(Mount.server(lab.memory.layer, yield* ActionToken.make, 0))
      const url = yield* InspectorServer.url.pipe(Effect.provideContext(context))
      expect((yield* get(`${url}/health`)).body).toBe("ok")
      const sessions = yield* get(`${url}/inspector/`)
      expect(sessions.status).toBe(200)
      expect(sessions.body).toContain('<a href="/inspector/sessions/s">s</a>')
      expect(sessions.body).toMatch(/href="\/inspector\/assets\/inspector\.css\?v=\w+"/)
      expect(sessions.body).toContain('data-base="/inspector"')
      expect((yield* get(`${url}/inspector/sessions/s/runs/1`)).status).toBe(200)
      expect((yield* get(`${url}/inspector/assets/inspector.js`)).status).toBe(200)
      // Unknown paths stay the app's.
      expect((yield* get(`${url}/nowhere`)).status).toBe(404)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("standalone.ts: the inspector alone on 127.0.0.1, its address and a new token printed at start-up", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      yield* lab.memory.run("s", "go")
      const ui = yield* Effect.forkChild(Standalone.ui(lab.memory.layer, 0))
      const banner = yield* Effect.gen(function* () {
        for (;;) {
          const lines = yield* TestConsole.logLines
          if (lines.length > 0) return String(lines[0])
          yield* Effect.sleep("20 millis")
        }
      })
      const [address, tokenLine] = banner.split("\n")
      expect(address).toMatch(/^agent-kernel inspector: http:\/\/127\.0\.0\.1:\d+\/$/)
      expect(tokenLine).toMatch(/^action token \(resume, interrupt\): [A-Za-z0-9_-]{43}$/)
      const url = address!.replace("agent-kernel inspector: ", "")
      expect((yield* get(url)).body).toContain('<a href="/sessions/s">s</a>')
      const token = tokenLine!.split(": ")[1]!
      const refused = yield* get(`${url}api/sessions/s/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      expect(refused.status).toBe(409)
      yield* Fiber.interrupt(ui)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer), Effect.provide(TestConsole.layer))
  )
})
