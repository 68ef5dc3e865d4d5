/**
 * The `agent` command: its options, and a handler that loads the run
 * (run.ts: the kernel, the providers, the plugins) only when it runs, so
 * that `--help`, `--version` and a usage error start without them.
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { LastRunStatus } from "./exitCodes.js"
import * as Scenarios from "./scenarios.js"
import { settingsOptions } from "./settingsOptions.js"

/** A flag that is off unless given. */
const toggle = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false))

/**
 * The options that choose the model a run calls, its tools and its settings: `agent` takes them, and
 * `agent ui` takes them to resume a run from its page (run.ts `prepare` reads them for both).
 */
export const modelOptions = {
  provider: Flag.Literals("provider", ["fake", "anthropic", "openai"]).pipe(
    Flag.withMetavar("NAME"),
    Flag.withDescription(
      "Default: anthropic if ANTHROPIC_API_KEY is set, else openai if OPENAI_API_KEY is set, else fake"
    ),
    Flag.optional
  ),
  model: Flag.String("model").pipe(
    Flag.withMetavar("NAME"),
    Flag.withDescription("The model to call (default: fake-model, claude-sonnet-4-5 or gpt-4o-mini)"),
    Flag.optional
  ),
  system: Flag.String("system").pipe(
    Flag.withMetavar("TEXT"),
    Flag.withDescription("The system prompt"),
    Flag.optional
  ),
  mcp: Flag.String("mcp").pipe(
    Flag.withMetavar('"COMMAND ARGS"'),
    Flag.withDescription(
      "An MCP stdio plugin, split into argv without a shell; repeatable. One that cannot start ends the command (exit 2)"
    ),
    Flag.atLeast(0)
  ),
  ...settingsOptions,
  scenario: Flag.String("scenario").pipe(
    Flag.withMetavar("NAME|FILE"),
    Flag.withDescription(
      `For the fake provider: a scenario (${Scenarios.names.join(", ")}), a chaos plan (${Scenarios.chaosPlans.join(", ")}: with your prompt), or a fault-plan file`
    ),
    Flag.optional
  )
}

const { provider, model, ...toolsAndSettings } = modelOptions

const options = {
  provider,
  model,
  prompt: Flag.String("prompt").pipe(
    Flag.withMetavar("TEXT"),
    Flag.withDescription("One run with this input. Without it: interactive on a TTY, else one run reading stdin"),
    Flag.optional
  ),
  ...toolsAndSettings,
  json: toggle(
    "json",
    "JSON Lines on stdout: one kernel event a line, the last one run_ended; the answer's text_delta events too, as they arrive"
  ),
  stream: toggle(
    "stream",
    "Print the answer as it streams even when stdout is not a terminal (on a terminal it always streams, with a spinner while waiting); off a terminal the answer is otherwise printed once, at the end"
  ),
  thinking: toggle(
    "thinking",
    'Print the model\'s thinking as it streams, dimmed (by default the spinner says "thinking")'
  ),
  otel: toggle(
    "otel",
    "Export the run's spans and metrics over OTLP/HTTP, to OTEL_EXPORTER_OTLP_ENDPOINT (OTEL_SERVICE_NAME names the service); needs the optional OpenTelemetry packages"
  ),
  session: Flag.String("session").pipe(
    Flag.withMetavar("PATH"),
    Flag.withDescription(
      "Keep the session in the store at PATH (created if new): a new prompt continues its conversation, and a run a crash interrupted is finished first"
    ),
    Flag.optional
  ),
  resume: toggle("resume", "With --session: finish the interrupted or paused run in the store, without a new prompt"),
  resetBudget: toggle(
    "reset-budget",
    "With --resume: a paused run's retry budget and its call's retries start again (by default the retries used stay used)"
  )
}

/** What the model options parse to. */
export type ModelInput = Command.Command.Config.Infer<typeof modelOptions>

/** What the options parse to. */
export type Parsed = Command.Command.Config.Infer<typeof options>

/** The `agent` command; the status of its last run is left in `LastRunStatus` for the exit code. */
export const command = Command.make("agent", options, (parsed) =>
  Effect.gen(function* () {
    const { run } = yield* Effect.promise(() => import("./run.js"))
    const status = yield* run(parsed)
    yield* Ref.set(yield* LastRunStatus, status)
  })
).pipe(Command.withDescription("Run the agent kernel: a prompt, a chaos scenario, or an interactive session"))
