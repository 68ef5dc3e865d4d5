/**
 * Real sessions for the inspector's tests: the kernel's `Session` on the
 * Anthropic provider, talking HTTP to a fake provider server that follows a
 * fault plan (one server per session, kept across a resume), with two real
 * MCP plugin processes from examples/plugins: `workspace` (reads files) and
 * `chaos` (its `fetch_report` kills its own process; its
 * `wait_for_approval` never answers). Their events are recorded by the
 * in-memory store.
 */
import { EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import { Anthropic, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { MemoryStore } from "../../src/testing/index.js"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../..")

/** The API key the provider sends: it must never reach a page. */
export const secretKey = "sk-ant-inspector-SECRET-5b1f0c6e2d9a4f87"

/** Settings that make each recovery happen fast and in a known order. */
export const settings: Settings.Settings = {
  ...Settings.defaults,
  base_delay_ms: 150,
  max_delay_ms: 1_000,
  jitter: "none",
  max_retries: 2,
  max_session_retries: 10,
  session_retries_refill: false,
  fallback_models: ["model-b"],
  breaker_consecutive_failures: 3,
  breaker_cooldown_ms: 60_000,
  tool_timeout_ms: 20_000
}

/** A session the lab can run: its fault plan, and whether it has the plugins. */
export interface Scenario {
  readonly plan: FaultPlan.FaultPlan
  readonly plugins?: boolean | undefined
  readonly settings?: Settings.Settings | undefined
}

const overflow: FaultPlan.Step = {
  kind: "error",
  status: 400,
  error_type: "invalid_request_error",
  message: "prompt is too long: 210000 tokens > 200000 maximum"
}

/**
 * The recovery tour: a rate limit with the server's retry-after, an overload
 * with our backoff, another that exhausts the model's retries and falls back
 * to model-b, a workspace read of a large file, three plugin crashes that
 * open the breaker, a context overflow that the kernel reduces, and a
 * streamed answer. A second run is stopped by the content filter.
 */
export const tour: Scenario = {
  plugins: true,
  plan: {
    name: "tour",
    steps: [
      {
        kind: "error",
        status: 429,
        error_type: "rate_limit_error",
        message: "Number of requests has exceeded your per-minute rate limit",
        headers: { "retry-after-ms": "400" }
      },
      { kind: "error", status: 529, error_type: "overloaded_error", message: "Overloaded" },
      { kind: "error", status: 529, error_type: "overloaded_error", message: "Overloaded" },
      { kind: "reply", tool_calls: [{ name: "read_file", input: { path: "big.txt" } }] },
      {
        kind: "reply",
        tool_calls: [
          { name: "fetch_report", input: { quarter: "Q1" } },
          { name: "fetch_report", input: { quarter: "Q2" } },
          { name: "fetch_report", input: { quarter: "Q3" } }
        ]
      },
      overflow,
      {
        kind: "reply",
        text: "The report could not be fetched: the chaos plugin crashed three times and its breaker is open.",
        delta_chars: 6,
        event_delay_ms: 10
      },
      { kind: "reply", text: "I can help with part of that, but", stop: "refusal" }
    ]
  }
}

/** A long answer streamed slowly: about `seconds` seconds of text deltas. */
export const slowAnswer = (text: string, seconds: number): FaultPlan.Step => {
  const deltaChars = 4
  return {
    kind: "reply",
    text,
    delta_chars: deltaChars,
    event_delay_ms: Math.max(1, Math.round((seconds * 1_000) / Math.ceil(text.length / deltaChars)))
  }
}

/** A run that waits on a tool that never answers (until it is interrupted). */
export const hangingTool: Scenario = {
  plugins: true,
  plan: {
    steps: [
      { kind: "reply", tool_calls: [{ name: "wait_for_approval", input: { change: "deploy" } }] },
      { kind: "reply", text: "approved" }
    ]
  }
}

/** The workspace plugin's folder, with a 20 KB file; removed with the lab. */
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "inspector-workspace-"))
    const line = "Quarterly figures, region by region, with every footnote the auditors asked for.\n"
    Fs.writeFileSync(Path.join(dir, "big.txt"), line.repeat(Math.ceil(20_000 / line.length)))
    return dir
  }),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const plugin = (name: string, script: string, env: Readonly<Record<string, string>> = {}): McpStdio.Config => ({
  name,
  command: process.execPath,
  args: [Path.join(root, "examples/plugins", script)],
  env,
  shutdownGraceMillis: 300
})

/** The lab: a memory store whose sessions are the scenarios'. */
export interface Lab {
  readonly memory: MemoryStore.MemoryStore
  /** The fake provider server of a session (made on its first run). */
  readonly server: (id: string) => Effect.Effect<FakeProvider.FakeProvider>
  /** Every event the store recorded for a session, in order. */
  readonly events: (id: string) => Effect.Effect<ReadonlyArray<KernelEvent.KernelEvent>>
}

/** Makes a lab whose sessions run the scenarios, by session id. */
export const make = (
  scenarios: Readonly<Record<string, Scenario>>
): Effect.Effect<Lab, never, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const services = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem>()
    const labScope = yield* Effect.scope
    const dir = yield* workspace
    const transport = yield* NodeTransport.make()
    const servers = yield* Ref.make<ReadonlyMap<string, FakeProvider.FakeProvider>>(new Map())
    const scenarioOf = (id: string) => {
      const scenario = scenarios[id]
      return scenario === undefined
        ? Effect.die(new Error(`the lab has no scenario "${id}"`))
        : Effect.succeed(scenario)
    }
    const server = (id: string) =>
      Effect.gen(function* () {
        const known = (yield* Ref.get(servers)).get(id)
        if (known !== undefined) return known
        // The server lives with the lab, across the sessions a resume makes.
        const made = yield* FakeProvider.make((yield* scenarioOf(id)).plan).pipe(Effect.orDie, Scope.provide(labScope))
        yield* Ref.update(servers, (all) => new Map(all).set(id, made))
        return made
      })
    const factory: MemoryStore.SessionFactory = ({ id, state, observer }) =>
      Effect.gen(function* () {
        const scenario = yield* scenarioOf(id)
        const sessionSettings = scenario.settings ?? settings
        const bus = yield* MemoryStore.busWith(observer)
        const fake = yield* server(id)
        const provider = yield* Anthropic.make({ apiKey: Redacted.make(secretKey), baseUrl: fake.url }).pipe(
          Effect.orDie,
          Effect.provideService(Transport.Transport, transport)
        )
        const toolbox = scenario.plugins
          ? yield* PluginToolbox.make({
              providers: [
                McpStdio.make(plugin("workspace", "workspace.mjs", { WORKSPACE_ROOT: dir })),
                McpStdio.make(plugin("chaos", "chaos.mjs"))
              ],
              settings: sessionSettings
            }).pipe(Effect.provideContext(services))
          : Toolbox.empty
        return yield* Session.make({
          id,
          model: "model-a",
          settings: sessionSettings,
          ...(Option.isSome(state) ? { state: state.value } : {})
        }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider),
          Effect.provideService(Toolbox.Toolbox, toolbox),
          Effect.provideService(EventBus.EventBus, bus)
        )
      })
    const memory = yield* MemoryStore.make(factory)
    return {
      memory,
      server,
      events: (id) =>
        Effect.map(Effect.orDie(memory.store.events(id, { after: 0, limit: Number.MAX_SAFE_INTEGER })), (logged) =>
          logged.map((entry) => entry.event)
        )
    }
  })
