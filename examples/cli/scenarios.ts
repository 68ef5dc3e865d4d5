/**
 * The bundled chaos scenarios: a fault plan for the fake provider, the real
 * MCP plugins to start, and the settings that make the recovery path show.
 * A plan is built from the providers' chaos plans when its scenario runs, so
 * the command line (which lists the scenarios' names) starts without them.
 */
import type { ChaosPlans, FaultPlan } from "@agent-kernel/providers/testing"
import * as fs from "node:fs"
import * as path from "node:path"

/** A bundled example plugin. */
export type BundledPlugin = "workspace" | "chaos"

export interface Scenario {
  readonly name: string
  readonly description: string
  /** The fault plan, from the providers' chaos plans (`ChaosPlans` of @agent-kernel/providers/testing). */
  readonly plan: (chaos: typeof ChaosPlans) => FaultPlan.FaultPlan
  readonly plugins: ReadonlyArray<BundledPlugin>
  readonly settings: Readonly<Record<string, unknown>>
  readonly prompt: string
  /** The status the scenario is built to end with (the demo and the tests check it). */
  readonly expected: string
}

/** This module's directory and every one above it. */
const ancestors = (dir: string): ReadonlyArray<string> => {
  const parent = path.dirname(dir)
  return parent === dir ? [dir] : [dir, ...ancestors(parent)]
}

// The nearest directory above this module that holds the example plugins: examples/ from the sources
// (examples/cli/) and from the bundle's chunks (examples/dist/chunks/, scripts/build-cli.mjs).
const examples =
  ancestors(import.meta.dirname).find((dir) => fs.existsSync(path.join(dir, "plugins", "workspace.mjs"))) ??
  path.resolve(import.meta.dirname, "..")

/** How to start a bundled plugin: plain node (the plugins are type-checked JavaScript, so no loader slows a respawn). */
export const pluginCommand = (plugin: BundledPlugin): ReadonlyArray<string> => [
  process.execPath,
  path.join(examples, "plugins", `${plugin}.mjs`)
]

export const repositoryRoot = path.resolve(examples, "..")

const reply = (text: string): FaultPlan.Step => ({ kind: "reply", text, stop: "end_turn" })
const call = (name: string, input: unknown = {}): FaultPlan.Step => ({
  kind: "reply",
  tool_calls: [{ name, input }],
  stop: "tool_use"
})

export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "rate-limits",
    description: "429s with retry-after (seconds, then milliseconds): each retry waits at least what the server asked",
    plan: (chaos) => ({
      name: "rate-limits",
      steps: [
        ...chaos.rateLimits.steps,
        call("list_files", {}),
        reply("The workspace holds the agent-kernel packages, examples and docs.")
      ]
    }),
    plugins: ["workspace"],
    settings: {},
    prompt: "What is in this workspace?",
    expected: "completed"
  },
  {
    name: "overload-storm",
    description:
      "529s and a stream that fails mid-way (restarted whole), until the session's retry budget (3 here) runs out",
    plan: (chaos) => ({
      name: "overload-storm",
      steps: [
        chaos.overloadStorm.steps[0]!,
        chaos.overloadStorm.steps[1]!,
        chaos.overloadStorm.steps[3]!,
        chaos.overloadStorm.steps[0]!
      ],
      after: "repeat_last"
    }),
    plugins: [],
    settings: { max_session_retries: 3 },
    prompt: "Summarise the project.",
    expected: "retry_budget_exhausted"
  },
  {
    name: "context-overflow",
    description: "a large tool result, then prompt is too long: the context is reduced, never re-sent as it was",
    plan: (chaos) => ({
      name: "context-overflow",
      steps: [
        call("read_file", { path: "pnpm-lock.yaml", max_bytes: 60_000 }),
        ...chaos.contextOverflow.steps,
        reply("The direct dependencies are effect, @effect/platform-node and the MCP SDK.")
      ]
    }),
    plugins: ["workspace"],
    settings: {},
    prompt: "Read the lockfile and list the direct dependencies.",
    expected: "completed"
  },
  {
    name: "refusal",
    description: "the content filter stops a partial answer: its own event, the partial text kept",
    plan: (chaos) => chaos.refusal,
    plugins: [],
    settings: {},
    prompt: "Tell me something you will refuse halfway.",
    expected: "content_filtered"
  },
  {
    name: "plugin-crash",
    description:
      "a plugin killed mid-call, three times: error tool_results, then its breaker opens and nothing respawns",
    plan: () => ({
      name: "plugin-crash",
      steps: [
        call("fetch_report", { quarter: "Q3" }),
        call("fetch_report", { quarter: "Q3" }),
        call("fetch_report", { quarter: "Q3" }),
        call("fetch_report", { quarter: "Q3" }),
        reply("The report plugin keeps crashing, so I cannot fetch the report right now.")
      ]
    }),
    plugins: ["chaos"],
    settings: {},
    prompt: "Fetch the Q3 report.",
    expected: "completed"
  },
  {
    name: "hung-tool",
    description: "a tool that never answers: cancelled at tool_timeout_ms (2 s here) and reported to the model",
    plan: () => ({
      name: "hung-tool",
      steps: [call("wait_for_approval", { change: "deploy" }), reply("Approval timed out; I did not deploy.")]
    }),
    plugins: ["chaos"],
    settings: { tool_timeout_ms: 2_000 },
    prompt: "Deploy once approved.",
    expected: "completed"
  },
  {
    name: "auth-error",
    description: "401 on every request: the run ends at once, with no retry and no fallback",
    plan: (chaos) => chaos.authError,
    plugins: [],
    settings: { fallback_models: ["fake-fallback"] },
    prompt: "Hello?",
    expected: "auth_error"
  },
  {
    name: "happy",
    description: "no faults: a tool call, then an answer",
    plan: () => ({
      name: "happy",
      steps: [call("list_files", {}), reply("The workspace holds packages, examples and docs.")]
    }),
    plugins: ["workspace"],
    settings: {},
    prompt: "What is in this workspace?",
    expected: "completed"
  }
]

export const byName = (name: string): Scenario | undefined => scenarios.find((scenario) => scenario.name === name)

/** The scenarios' names. */
export const names: ReadonlyArray<string> = scenarios.map((scenario) => scenario.name)

/**
 * The names of the providers' chaos plans (`ChaosPlans.names`), written out so that `--help` starts
 * without the fake provider's modules; a test checks them against `ChaosPlans`.
 */
export const chaosPlanNames: ReadonlyArray<string> = [
  "rate-limits",
  "overload-storm",
  "context-overflow",
  "refusal",
  "mid-stream-error",
  "flaky-network",
  "auth-error",
  "happy"
]

/**
 * The chaos plans `--scenario` reaches by name: those no scenario of the same name wraps (a scenario
 * is built on the chaos plan of its name, with the tool calls, plugins and settings that show it).
 */
export const chaosPlans: ReadonlyArray<string> = chaosPlanNames.filter((name) => byName(name) === undefined)
