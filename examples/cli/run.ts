/**
 * One run (or an interactive session) of the kernel, as `agent` was asked
 * for it: against the fake provider, Anthropic or OpenAI, with MCP plugins,
 * on a session kept in memory or in a durable store.
 */
import {
  Content,
  EventBus,
  ModelProvider,
  type RunOutcome,
  Session,
  type Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import { Anthropic, OpenAi } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as path from "node:path"
import type { ModelInput, Parsed } from "./agent.js"
import { readStdin } from "./boundedRead.js"
import * as CliOutput from "./cliOutput.js"
import * as Interactive from "./interactive.js"
import * as Otel from "./otel.js"
import * as Plans from "./plans.js"
import * as Render from "./render.js"
import * as Scenarios from "./scenarios.js"
import * as Sessions from "./sessions.js"
import { loadSettings } from "./settingsOptions.js"
import { UsageError } from "./usage.js"

const defaultModels = { fake: "fake-model", anthropic: "claude-sonnet-4-5", openai: "gpt-4o-mini" } as const

/** Splits "COMMAND ARGS" into argv like a shell would for quotes and backslashes, without running one. */
export const splitCommandLine = (line: string): Result.Result<ReadonlyArray<string>, string> => {
  const args: Array<string> = []
  let current = ""
  let quote: '"' | "'" | undefined
  let started = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === "\\" && quote === '"' && i + 1 < line.length) current += line[++i]
      else current += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      started = true
    } else if (ch === "\\" && i + 1 < line.length) {
      current += line[++i]
      started = true
    } else if (/\s/.test(ch)) {
      if (started) args.push(current)
      current = ""
      started = false
    } else {
      current += ch
      started = true
    }
  }
  if (quote !== undefined) return Result.fail(`unclosed ${quote} quote in --mcp "${line}"`)
  if (started) args.push(current)
  return args.length === 0 ? Result.fail("--mcp needs a command") : Result.succeed(args)
}

/** A plugin's name: its script's or its command's base name. */
const pluginName = (argv: ReadonlyArray<string>, taken: Set<string>): string => {
  const script = [...argv].reverse().find((arg) => /\.(m?[jt]s|py|sh)$/.test(arg))
  const base = path.basename(script ?? argv[0] ?? "plugin").replace(/\.[^.]+$/, "")
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`
  taken.add(name)
  return name
}

/** What `--scenario` names: a bundled scenario (its plan, plugins, settings and prompt), or a plan alone. */
const resolveScenario = (name: string) => {
  const bundled = Scenarios.byName(name)
  if (bundled !== undefined) return Effect.succeed({ scenario: bundled, plan: bundled.plan(ChaosPlans) })
  return Effect.map(
    Plans.load(
      name,
      () =>
        `--scenario "${name}" is neither a bundled scenario (${Scenarios.names.join(", ")}), a chaos plan (${Scenarios.chaosPlans.join(", ")}) nor a fault-plan file`
    ),
    (plan) => ({ scenario: undefined, plan })
  )
}

/** A plugin to start: `spec` is the --mcp text of one the user named, which must start (see `makeToolbox`). */
interface Plugin {
  readonly config: McpStdio.Config
  readonly spec?: string
}

/** What the model options ask for, checked: the provider, the fake provider's plan, the settings, the plugins, the model. */
export interface Prepared {
  readonly providerName: "fake" | "anthropic" | "openai"
  readonly scenario: Scenarios.Scenario | undefined
  readonly plan: FaultPlan.FaultPlan
  readonly settings: Settings.Settings
  readonly plugins: ReadonlyArray<Plugin>
  readonly model: string
  readonly system: Option.Option<string>
}

/**
 * The model options read and checked as `agent` and `agent ui` take them (agent.ts `modelOptions`):
 * bad usage (a provider without its key, a scenario with another provider, bad settings, a bad
 * --mcp) fails here, before anything starts.
 */
export const prepare = (parsed: ModelInput) =>
  Effect.gen(function* () {
    const env = process.env
    // A scenario is played by the fake provider, whatever keys the environment holds.
    const providerName =
      Option.getOrUndefined(parsed.provider) ??
      (Option.isSome(parsed.scenario)
        ? "fake"
        : env["ANTHROPIC_API_KEY"]
          ? "anthropic"
          : env["OPENAI_API_KEY"]
            ? "openai"
            : "fake")
    if (Option.isSome(parsed.scenario) && providerName !== "fake") {
      return yield* new UsageError({ message: "--scenario works with --provider fake only" })
    }
    const keyVariable =
      providerName === "anthropic" ? "ANTHROPIC_API_KEY" : providerName === "openai" ? "OPENAI_API_KEY" : undefined
    if (keyVariable !== undefined && !env[keyVariable]) {
      return yield* new UsageError({ message: `--provider ${providerName} needs ${keyVariable} to be set` })
    }
    const chosen = yield* Option.match(parsed.scenario, {
      onNone: () => Effect.succeed({ scenario: undefined, plan: FaultPlan.happy }),
      onSome: resolveScenario
    })
    const settings = yield* loadSettings(parsed.settings, parsed.set, chosen.scenario?.settings)
    const taken = new Set<string>()
    // `spec` is the --mcp text of a plugin the user named: it must start (see below).
    const plugins: Array<{ readonly config: McpStdio.Config; readonly spec?: string }> = []
    for (const spec of parsed.mcp) {
      const argv = yield* Effect.fromResult(
        Result.mapError(splitCommandLine(spec), (message) => new UsageError({ message }))
      )
      plugins.push({ config: { name: pluginName(argv, taken), command: argv[0]!, args: argv.slice(1) }, spec })
    }
    for (const bundled of chosen.scenario?.plugins ?? []) {
      const [command, ...args] = Scenarios.pluginCommand(bundled)
      plugins.push({
        config: { name: pluginName([bundled], taken), command: command!, args, cwd: Scenarios.repositoryRoot }
      })
    }
    const model = Option.getOrElse(parsed.model, () => defaultModels[providerName])
    return {
      providerName,
      scenario: chosen.scenario,
      plan: chosen.plan,
      settings,
      plugins,
      model,
      system: parsed.system
    }
  })

/** The model provider `prepared` names, for the life of the scope (the fake provider's server with it). */
export const makeProvider = (prepared: Prepared) =>
  prepared.providerName === "fake"
    ? Effect.flatMap(FakeProvider.make(prepared.plan), (fake) =>
        Anthropic.make({ apiKey: Redacted.make("fake-key"), baseUrl: fake.url })
      )
    : prepared.providerName === "anthropic"
      ? Anthropic.make()
      : OpenAi.make()

/**
 * The tools of `prepared`'s plugins, for the life of the scope. A plugin the user named is started
 * now: one that cannot start fails with bad usage before any model request, instead of a run
 * without its tools.
 */
export const makeToolbox = (prepared: Prepared) =>
  Effect.gen(function* () {
    const { plugins, settings } = prepared
    const providers = yield* Effect.forEach(plugins, ({ config }) =>
      McpStdio.make({ ...config, startupTimeoutMillis: settings.plugin_startup_timeout_ms })
    )
    yield* Effect.forEach(
      plugins.flatMap(({ spec }, i) => (spec === undefined ? [] : [{ spec, provider: providers[i]! }])),
      ({ spec, provider }) =>
        Effect.mapError(
          provider.list,
          (error) => new UsageError({ message: `--mcp "${spec}" could not be started: ${error.message}` })
        ),
      { concurrency: "unbounded", discard: true }
    )
    return yield* PluginToolbox.make({ providers: providers.map(Effect.succeed), settings })
  })

/** The session's configuration `prepared` asks for: its model, settings and system prompt. */
export const sessionConfig = (prepared: Prepared) => ({
  model: prepared.model,
  settings: prepared.settings,
  ...Option.match(prepared.system, { onNone: () => ({}), onSome: (system) => ({ system }) })
})

/** The run `parsed` asks for; the status of its last run (none when an interactive session ran nothing). */
export const run = (parsed: Parsed) =>
  Effect.gen(function* () {
    const env = process.env
    const prepared = yield* prepare(parsed)
    const json = parsed.json
    const out = Render.stdout
    const color = !json && CliOutput.colorEnabled(process.stdout, env)
    if (Option.isSome(parsed.prompt) && parsed.prompt.value.trim() === "") {
      return yield* new UsageError({ message: "--prompt is empty: pass the text to send, or text on stdin" })
    }
    const store = Option.getOrUndefined(parsed.session)
    if (parsed.resume && store === undefined) {
      return yield* new UsageError({ message: "--resume needs --session PATH: the store of the run to finish" })
    }
    if (parsed.resetBudget && !parsed.resume) {
      return yield* new UsageError({ message: "--reset-budget needs --resume: it starts a paused run's budget again" })
    }
    const input = Option.getOrUndefined(parsed.prompt) ?? prepared.scenario?.prompt
    const stdinInput =
      input === undefined && !parsed.resume && process.stdin.isTTY !== true
        ? yield* Effect.mapError(readStdin(process.stdin), (message) => new UsageError({ message }))
        : undefined
    if (stdinInput !== undefined && stdinInput.trim() === "") {
      return yield* new UsageError({ message: "no input: pass --prompt, or text on stdin" })
    }
    // Loaded only with --otel; its layer flushes the last spans and metrics when the command ends.
    const telemetry = parsed.otel ? yield* Otel.layer(env) : Layer.empty

    return yield* Effect.scoped(
      Effect.gen(function* () {
        const provider = yield* makeProvider(prepared)
        const timeline = json
          ? undefined
          : yield* Render.human(out, { color, stream: out.tty || parsed.stream, thinking: parsed.thinking })
        // A run resumed from its journal says where it goes on, at its first event after the replay.
        const resuming = yield* Ref.make<number | undefined>(undefined)
        const whereResumed: EventBus.Observer = {
          onEvent: (event) =>
            Effect.flatMap(Ref.getAndSet(resuming, undefined), (run) => {
              const where = run === undefined ? undefined : Sessions.resumedAt(event)
              return where === undefined
                ? Effect.void
                : Effect.sync(() => process.stderr.write(`agent: run ${run} resumed at ${where}\n`))
            })
        }
        const bus = yield* EventBus.make([
          whereResumed,
          timeline === undefined ? Render.jsonLines(out) : timeline.observer
        ])
        const toolbox = yield* makeToolbox(prepared)
        // A run's summary; a run Ctrl-C stopped at the prompt has no outcome: its run_ended tells how it ended.
        const report = (outcome: RunOutcome.RunOutcome | undefined) =>
          timeline === undefined
            ? Effect.void
            : Effect.gen(function* () {
                const ended = outcome ?? (yield* timeline.lastRun)
                const streamed = yield* timeline.streamedAnswer
                if (ended !== undefined) out.write(Render.summary(ended, color, streamed))
              })
        const promptOutput = json ? process.stderr : process.stdout
        const text = input ?? stdinInput
        if (store !== undefined) {
          const { DurableSessions, Engine, sessionsLayer } = yield* Effect.promise(() => import("./durable.js"))
          const durable = sessionsLayer(Engine.layerSqlite(store), sessionConfig(prepared), { provider, bus, toolbox })
          const announce = (pending: Sessions.Listed) =>
            Effect.andThen(
              Effect.sync(() => process.stderr.write(`${Sessions.resumeNotice(pending)}\n`)),
              Ref.set(resuming, pending.runs)
            )
          // A run to finish is in a store that is there: --resume never creates one (nor its lock file).
          const resumable = parsed.resume
            ? Effect.provide(DurableSessions.summaries, Engine.layerSqliteReader(store))
            : Effect.void
          return yield* resumable.pipe(
            Effect.andThen(
              durableRun(
                DurableSessions.DurableSessions,
                store,
                { only: parsed.resume, resetBudget: parsed.resetBudget },
                text,
                report,
                promptOutput,
                announce
              ).pipe(Effect.provide(durable))
            ),
            Effect.catchTag("StoreError", Sessions.storeFailure(store))
          )
        }
        // One session per process, so its id is fixed: a run reads "session-1/run-N".
        const session = yield* Session.make({ id: "session-1", ...sessionConfig(prepared) }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider),
          Effect.provideService(EventBus.EventBus, bus),
          Effect.provideService(Toolbox.Toolbox, toolbox)
        )
        // The status of the last run (none if an interactive session ran nothing): main.ts maps it to the exit code.
        return text !== undefined
          ? (yield* Effect.tap(session.run(Content.userText(text)), report)).status
          : yield* Interactive.prompt({ run: (line) => session.run(line), report, output: promptOutput })
      })
    ).pipe(Effect.provide(NodeTransport.layer()), Effect.provide(telemetry))
  }).pipe(Effect.catchTag("ConfigError", (error) => Effect.fail(new UsageError({ message: error.message }))))

/** The store's one session: the CLI keeps one conversation per store. */
const durableSessionId = "session-1"

/** Why `--reset-budget` is refused: the store's unfinished run (`pending`) is not paused, or there is none. */
const notPausedMessage = (store: string, pending: Sessions.Listed | undefined): string =>
  `--reset-budget resets the retry budget of a paused run only: ${
    pending === undefined
      ? `${store} has no paused run`
      : `run ${pending.runs} in ${store} is interrupted (its process stopped), not paused; --resume finishes it without --reset-budget`
  }`

/**
 * A run on a durable session: an unfinished run (a crash, a kill, Ctrl-C) is finished first, from
 * its journal; then the new input, if any, runs as the session's next run.
 */
const durableRun = (
  tag: typeof import("./durable.js").DurableSessions.DurableSessions,
  store: string,
  resume: { readonly only: boolean; readonly resetBudget: boolean },
  text: string | undefined,
  report: (outcome: RunOutcome.RunOutcome | undefined) => Effect.Effect<void>,
  promptOutput: NodeJS.WritableStream,
  announce: (pending: Sessions.Listed) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const sessions = yield* tag
    // This process owns the store now: an unfinished run in it is one a stopped process left.
    const pending = (yield* sessions.list).find((session) => session.id === durableSessionId && session.unfinished)
    // A paused run waits for the user: only --resume continues it, and a new input waits behind it.
    if (pending !== undefined && pending.paused !== null && !resume.only) {
      const paused = Sessions.pausedNotice(pending, pending.paused)
      yield* Effect.sync(() => process.stderr.write(`${paused}\n`))
      return "paused" as const
    }
    if (resume.resetBudget && (pending === undefined || pending.paused === null)) {
      return yield* new UsageError({ message: notPausedMessage(store, pending) })
    }
    if (pending !== undefined) yield* announce(pending)
    const resumed = yield* sessions
      .resume(durableSessionId, { reset_budget: resume.resetBudget })
      .pipe(
        Effect.catchTag("NotPaused", () => Effect.fail(new UsageError({ message: notPausedMessage(store, undefined) })))
      )
    if (Option.isSome(resumed)) yield* report(resumed.value)
    // A run that paused again keeps the new input waiting behind it.
    if (Option.isSome(resumed) && resumed.value.status === "paused") return resumed.value.status
    if (resume.only && text === undefined) {
      if (Option.isNone(resumed))
        yield* Effect.sync(() => process.stderr.write(`agent: no unfinished run in ${store}\n`))
      return Option.getOrUndefined(resumed)?.status
    }
    const run = (line: string) => sessions.run(durableSessionId, line)
    return text !== undefined
      ? (yield* Effect.tap(run(text), report)).status
      : yield* Interactive.prompt({ run, report, output: promptOutput })
  })

/** Runs one bundled scenario as `agent --scenario NAME` would, returning the status of its run. */
export const runScenario = (name: string, output: { readonly json?: boolean } = {}) =>
  run({
    provider: Option.some("fake" as const),
    model: Option.none(),
    prompt: Option.none(),
    system: Option.none(),
    mcp: [],
    settings: Option.none(),
    set: [],
    scenario: Option.some(name),
    json: output.json ?? false,
    stream: false,
    thinking: false,
    otel: false,
    session: Option.none(),
    resume: false,
    resetBudget: false
  })
