/**
 * The fake provider server as `agent fake-server` runs it (see fakeServer.ts):
 * the plan found as `--scenario` finds one (plans.ts), the server the
 * providers' tests use (`FakeProvider.make`), its URL on stdout, how to point
 * `agent` at it on stderr.
 */
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import type { Input } from "./fakeServer.js"
import { validPort } from "./fakeServer.js"
import * as Plans from "./plans.js"
import * as Scenarios from "./scenarios.js"
import { UsageError } from "./usage.js"

/** What the server says on stderr once it listens: its plan and how to use it. */
export const announcement = (server: FakeProvider.FakeProvider, plan: FaultPlan.FaultPlan, named: string): string =>
  [
    `fake provider: plan ${plan.name ?? named} (${plan.steps.length} steps, then ${plan.after === "repeat_last" ? "the last one again" : "happy"}); Anthropic base ${server.url}, OpenAI base ${server.openAiBaseUrl}; Ctrl-C to stop`,
    `try: ANTHROPIC_BASE_URL=${server.url} ANTHROPIC_API_KEY=any agent --provider anthropic --prompt hi`,
    ""
  ].join("\n")

/** Serves until interrupted (SIGINT, SIGTERM); the server and its connections close with the scope. */
export const serve = (input: Input) =>
  Effect.scoped(
    Effect.gen(function* () {
      if (!validPort(input.port)) {
        return yield* new UsageError({ message: `--port must be 0 to 65535, not ${input.port}` })
      }
      const plan = yield* Plans.load(
        input.plan,
        () =>
          `--plan "${input.plan}" is neither a chaos plan (${Scenarios.chaosPlanNames.join(", ")}) nor a fault-plan file`
      )
      const server = yield* FakeProvider.make(plan, { port: input.port, host: input.host }).pipe(
        Effect.mapError(
          (error) => new UsageError({ message: `cannot listen on ${input.host}:${input.port}: ${error.message}` })
        )
      )
      yield* Effect.sync(() => {
        process.stdout.write(`${server.url}\n`)
        process.stderr.write(announcement(server, plan, input.plan))
      })
      return yield* Effect.never
    })
  )
