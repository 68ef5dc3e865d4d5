/**
 * Runs the fake provider server as a standalone process.
 *
 *   pnpm fake-provider --plan rate-limits --port 8787
 *   pnpm fake-provider --plan ./plan.json
 *
 * `--plan` is a bundled plan name (see ChaosPlans) or a JSON file; without it
 * the server is always happy. The first line on stdout is the URL (use it as
 * ANTHROPIC_BASE_URL, or add /v1 for OPENAI_BASE_URL). SIGINT or SIGTERM
 * stops the server and closes every connection.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import { ChaosPlans, FakeProvider, FaultPlan } from "../src/testing/index.js"

class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

const usage = `usage: fake-provider [--plan NAME|FILE] [--port N] [--host HOST]
bundled plans: ${ChaosPlans.names.join(", ")}`

interface Args {
  readonly plan: string | undefined
  readonly port: number
  readonly host: string
}

const parseArgs = (argv: ReadonlyArray<string>): Effect.Effect<Args, UsageError> =>
  Effect.gen(function* () {
    let plan: string | undefined
    let port = 0
    let host = "127.0.0.1"
    for (let i = 0; i < argv.length; i++) {
      const flag = argv[i]
      const value = argv[i + 1]
      if (flag === "--help" || flag === "-h") return yield* Effect.fail(new UsageError({ message: usage }))
      if (value === undefined) return yield* Effect.fail(new UsageError({ message: `${flag} needs a value\n${usage}` }))
      i++
      if (flag === "--plan") plan = value
      else if (flag === "--host") host = value
      else if (flag === "--port") {
        port = Number(value)
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          return yield* Effect.fail(new UsageError({ message: `--port must be 0-65535, got ${value}` }))
        }
      } else return yield* Effect.fail(new UsageError({ message: `unknown flag ${flag}\n${usage}` }))
    }
    return { plan, port, host }
  })

const loadPlan = (plan: string | undefined) =>
  Effect.gen(function* () {
    if (plan === undefined) return ChaosPlans.happy
    const named = ChaosPlans.byName(plan)
    if (Option.isSome(named)) return named.value
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs
      .readFileString(plan)
      .pipe(
        Effect.mapError(() => new UsageError({ message: `no bundled plan or readable file named ${plan}\n${usage}` }))
      )
    return yield* FaultPlan.fromJson(text).pipe(
      Effect.mapError((error) => new UsageError({ message: `invalid plan ${plan}:\n${error.message}` }))
    )
  })

const program = Effect.gen(function* () {
  const args = yield* parseArgs(process.argv.slice(2))
  const plan = yield* loadPlan(args.plan)
  const server = yield* FakeProvider.make(plan, { port: args.port, host: args.host })
  yield* Console.log(server.url)
  yield* Console.error(
    `fake provider: plan ${plan.name ?? args.plan ?? "happy"} (${plan.steps.length} steps); ` +
      `Anthropic base ${server.url}, OpenAI base ${server.openAiBaseUrl}; Ctrl-C to stop`
  )
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  Effect.catchTag("UsageError", (error) =>
    Console.error(error.message).pipe(Effect.andThen(Effect.sync(() => (process.exitCode = 2))))
  ),
  Effect.provide(NodeFileSystem.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: false })
