/**
 * A tour of every recovery path: each bundled chaos scenario runs the real
 * agent (the kernel, the Anthropic provider over HTTP to the fake provider
 * server, and real MCP plugin subprocesses), with the live timeline.
 *
 * Run: npx -y pnpm@12.4.2 demo
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import { runScenario } from "./cli/run.js"
import { exitCodes } from "./cli/exitCodes.js"
import { scenarios } from "./cli/scenarios.js"

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text)

const tour = Effect.gen(function* () {
  const results: Array<{ readonly name: string; readonly ok: boolean; readonly code: number }> = []
  for (const scenario of scenarios.filter((s) => s.name !== "happy")) {
    console.log(bold(`\n━━ ${scenario.name}: ${scenario.description}`))
    console.log(`   npx -y pnpm@12.4.2 --silent agent --scenario ${scenario.name}\n`)
    const status = yield* runScenario(scenario.name)
    const code = status === undefined ? 0 : exitCodes[status]
    results.push({ name: scenario.name, ok: status === scenario.expected, code })
  }
  console.log(bold("\n━━ summary"))
  for (const result of results) console.log(`${result.ok ? "✓" : "✗"} ${result.name.padEnd(18)} exit ${result.code}`)
  return results.every((result) => result.ok) ? 0 : 1
})

Effect.runPromise(tour.pipe(Effect.provide(NodeServices.layer))).then(
  (code) => {
    process.exitCode = code
  },
  (error) => {
    console.error(error)
    process.exitCode = 1
  }
)
