/**
 * The kernel's `Toolbox`, built from tool providers, a permission gate and
 * one circuit breaker per provider, for the life of a session.
 *
 * Every call goes: route by tool name, breaker, gate, the provider under
 * `tool_timeout_ms` (Effect's Clock), then the outcome is recorded on the
 * breaker and rendered as a tool_result. Nothing fails: a crash, a timeout, a
 * denial, bad arguments or an open breaker is an `is_error` result whose text
 * tells the model what happened. Crashes, timeouts, denials, spawn and
 * protocol failures count toward the breaker; what the model can fix itself
 * (bad arguments, a tool that answered with an error) does not. While a
 * breaker is open its provider's tools are withdrawn from `definitions` and
 * nothing is spawned; after `breaker_cooldown_ms` one call probes it.
 * Interrupting a call (the run was interrupted) stops its provider: an MCP
 * server's process group is killed, and the next call respawns it.
 *
 * @since 0.1.0
 */
import {
  Agent,
  CircuitBreaker,
  Content,
  EventBus,
  type ModelProvider,
  type Settings,
  Toolbox
} from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Gate from "./Gate.js"
import { truncate } from "./internal/content.js"
import * as PluginError from "./PluginError.js"
import * as ToolProvider from "./ToolProvider.js"

/**
 * The settings the toolbox reads.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolSettings = Pick<
  Settings.Settings,
  | "tool_timeout_ms"
  | "max_tool_result_bytes"
  | "breaker_consecutive_failures"
  | "breaker_total_failures"
  | "breaker_cooldown_ms"
>

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  /** Providers in priority order: when two offer the same tool name, the first wins. */
  readonly providers: ReadonlyArray<Effect.Effect<ToolProvider.ToolProvider, never, R>>
  /**
   * The fields given win; the rest are the agent's (`Agent.CurrentSettings`,
   * which `Agent.layer` provides to its toolbox Layer), `Settings.defaults`
   * outside an agent.
   */
  readonly settings?: Partial<ToolSettings> | undefined
}

/**
 * The toolbox, with its breakers visible for reports and tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface PluginToolbox extends Toolbox.Service {
  /** The breaker of each provider, by provider name. */
  readonly breakers: ReadonlyMap<string, CircuitBreaker.CircuitBreaker>
}

interface Entry {
  readonly provider: ToolProvider.ToolProvider
  readonly breaker: CircuitBreaker.CircuitBreaker
  readonly listed: Ref.Ref<ReadonlyArray<ModelProvider.ToolDefinition> | undefined>
  /** Why the last listing failed, so that a call to a tool never offered can say so. */
  readonly listError: Ref.Ref<PluginError.PluginError | undefined>
}

/**
 * The breaker rule the settings describe: `breaker_consecutive_failures` in
 * a row, or `breaker_total_failures` net of successes (each success takes
 * one off, so failures long past are forgiven).
 *
 * @since 0.1.0
 * @category constructors
 */
export const strategy = (settings: ToolSettings): CircuitBreaker.Strategy =>
  CircuitBreaker.either(
    CircuitBreaker.consecutive(settings.breaker_consecutive_failures),
    CircuitBreaker.total(settings.breaker_total_failures)
  )

/** The toolbox's state: its settings, gate, providers in priority order, and which provider owns each tool name. */
interface Box {
  readonly settings: ToolSettings
  readonly gate: Gate.Service
  readonly entries: ReadonlyArray<Entry>
  readonly routes: Ref.Ref<ReadonlyMap<string, Entry>>
}

const makeEntry = <R>(
  settings: ToolSettings,
  acquire: Effect.Effect<ToolProvider.ToolProvider, never, R>
): Effect.Effect<Entry, never, R> =>
  Effect.gen(function* () {
    const provider = yield* acquire
    const breaker = yield* CircuitBreaker.make({
      subject: provider.name,
      strategy: strategy(settings),
      cooldown: settings.breaker_cooldown_ms,
      onTransition: (transition) =>
        Effect.andThen(
          CircuitBreaker.publishTransition(provider.name)(transition),
          // The probe after the cooldown starts from a fresh process.
          transition.to === "open" ? provider.reset("its circuit breaker opened") : Effect.void
        )
    })
    return {
      provider,
      breaker,
      listed: yield* Ref.make<ReadonlyArray<ModelProvider.ToolDefinition> | undefined>(undefined),
      listError: yield* Ref.make<PluginError.PluginError | undefined>(undefined)
    }
  })

/** A provider's effect under `tool_timeout_ms` on the Clock; a defect in it is still only this call's failure. */
const withTimeout = <A>(
  settings: ToolSettings,
  entry: Entry,
  tool: string,
  effect: Effect.Effect<A, PluginError.PluginError>
): Effect.Effect<A, PluginError.PluginError> =>
  Effect.suspend(() => {
    let reason = "the run was interrupted"
    const timeoutMillis = settings.tool_timeout_ms
    // Not Effect.timeout: the reason must be set before the call is interrupted, so the server is told it.
    const expired = Effect.andThen(
      Effect.sleep(timeoutMillis),
      Effect.suspend(() => {
        reason = `the call timed out after ${timeoutMillis} ms (tool_timeout_ms)`
        return Effect.fail(new PluginError.ToolTimeout({ provider: entry.provider.name, tool, timeoutMillis }))
      })
    )
    return Effect.raceFirst(
      Effect.provideService(effect, ToolProvider.CancelReason, () => reason),
      expired
    ).pipe(
      // Only an interruption from outside reaches here (a timeout is a failure): the run was
      // stopped, and so is whatever the provider was doing for it. The next call respawns.
      Effect.onInterrupt(() => entry.provider.reset("the run was interrupted while a call was in flight"))
    )
  }).pipe(
    Effect.catchDefect((defect) =>
      Effect.fail(
        new PluginError.ToolDefect({
          provider: entry.provider.name,
          tool,
          reason: defect instanceof Error ? defect.message : String(defect)
        })
      )
    )
  )

/** Runs behind the provider's breaker, which hears every outcome; what the model can fix itself says nothing against the provider. */
const guarded = <A>(
  entry: Entry,
  tool: string,
  effect: Effect.Effect<A, PluginError.PluginError>
): Effect.Effect<A, PluginError.PluginError> =>
  CircuitBreaker.protect(entry.breaker, {
    isFailure: (error: PluginError.PluginError) => error.countsTowardBreaker,
    describe: brief
  })(effect).pipe(
    Effect.catchTag("BreakerRejected", (rejected) =>
      Effect.fail(
        new PluginError.BreakerOpen({
          provider: entry.provider.name,
          tool,
          reason: rejected.reason,
          retryInMillis: rejected.retryInMillis
        })
      )
    )
  )

/** A note for the model on what happens next to the provider. */
const aftermath = (settings: ToolSettings, entry: Entry, error: PluginError.PluginError): Effect.Effect<string> =>
  Effect.gen(function* () {
    if (!error.countsTowardBreaker) return ""
    if ((yield* entry.breaker.status) === "open") {
      return `\nPlugin "${entry.provider.name}" has failed too often: its circuit breaker is now open and its tools are withdrawn for ${Math.ceil(settings.breaker_cooldown_ms / 1000)} s.`
    }
    return error._tag === "ProcessCrashed" ? "\nThe plugin will be restarted on the next call." : ""
  })

/** A provider's tools: none while its breaker is open, the last list while nothing changed, else asked afresh. */
const listOf = (settings: ToolSettings, entry: Entry): Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>> =>
  Effect.gen(function* () {
    if ((yield* entry.breaker.status) === "open") return []
    const cached = yield* Ref.get(entry.listed)
    if (cached !== undefined && !(yield* entry.provider.changed)) return cached
    const outcome = yield* Effect.result(
      guarded(entry, "tools/list", withTimeout(settings, entry, "tools/list", entry.provider.list))
    )
    if (Result.isSuccess(outcome)) {
      yield* Ref.set(entry.listed, outcome.success)
      yield* Ref.set(entry.listError, undefined)
      return outcome.success
    }
    // Refused by the breaker (a probe is out): nothing was asked, nothing to report.
    if (outcome.failure._tag === "BreakerOpen") return cached ?? []
    yield* Ref.set(entry.listError, outcome.failure)
    yield* EventBus.publish({
      type: "warning",
      message: `the tools of plugin "${entry.provider.name}" could not be listed: ${outcome.failure.message}`
    })
    // A failed refresh keeps the last list; the breaker decides whether the provider stays offered.
    return (yield* entry.breaker.status) === "open" ? [] : (cached ?? [])
  })

/** Every provider's tools, the first provider offering a name winning it; records who owns each name. */
const definitionsOf = (box: Box): Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>> =>
  Effect.gen(function* () {
    const lists = yield* Effect.forEach(box.entries, (entry) => listOf(box.settings, entry), {
      concurrency: "unbounded"
    })
    const next = new Map(yield* Ref.get(box.routes))
    const offered: Array<ModelProvider.ToolDefinition> = []
    const names = new Set<string>()
    lists.forEach((tools, index) => {
      for (const tool of tools) {
        if (names.has(tool.name)) continue
        names.add(tool.name)
        offered.push(tool)
        const owner = next.get(tool.name)
        // Routes outlive withdrawal, so a call to a withdrawn tool still reaches its breaker.
        if (owner === undefined || box.entries.indexOf(owner) > index) next.set(tool.name, box.entries[index]!)
      }
    })
    yield* Ref.set(box.routes, next)
    return offered
  })

const route = (box: Box, name: string): Effect.Effect<Entry | undefined> =>
  Effect.gen(function* () {
    const known = (yield* Ref.get(box.routes)).get(name)
    if (known !== undefined) return known
    yield* definitionsOf(box)
    return (yield* Ref.get(box.routes)).get(name)
  })

const errorResult = (settings: ToolSettings, call: Content.ToolUseBlock, text: string): Content.ToolResultBlock =>
  Content.toolResult(call.id, truncate(text, settings.max_tool_result_bytes), true)

/** A call to a tool no provider offers: which tools exist, and why a provider could not say what it offers. */
const unknownTool = (box: Box, call: Content.ToolUseBlock): Effect.Effect<Content.ToolResultBlock> =>
  Effect.gen(function* () {
    const available = [...(yield* Ref.get(box.routes)).keys()]
    const unavailable = yield* Effect.forEach(box.entries, (e) => Ref.get(e.listError))
    const why = unavailable.flatMap((error) => (error === undefined ? [] : [`\n${error.message}`])).join("")
    return errorResult(
      box.settings,
      call,
      `${new PluginError.UnknownTool({ tool: call.name, available }).message}${why}`
    )
  })

const invokeWith = (box: Box) =>
  Effect.fn("PluginToolbox.invoke")(function* (call: Content.ToolUseBlock) {
    const entry = yield* route(box, call.name)
    if (entry === undefined) return yield* unknownTool(box, call)
    const provider = entry.provider.name
    // The gate runs behind the breaker: a denial counts, and an open breaker asks nobody.
    const gated = Effect.flatMap(box.gate.decide({ provider, tool: call.name, input: call.input }), (decision) =>
      decision._tag === "Deny"
        ? Effect.fail(new PluginError.Denied({ provider, tool: call.name, reason: decision.reason }))
        : withTimeout(box.settings, entry, call.name, entry.provider.call(call.name, call.input))
    )
    const outcome = yield* Effect.result(guarded(entry, call.name, gated))
    if (Result.isSuccess(outcome)) {
      return Content.toolResult(call.id, truncate(outcome.success, box.settings.max_tool_result_bytes), false)
    }
    return errorResult(
      box.settings,
      call,
      `${outcome.failure.message}${yield* aftermath(box.settings, entry, outcome.failure)}`
    )
  })

/**
 * Builds the toolbox in the current scope; the providers' resources
 * (subprocesses) live until it closes. Uses the `Gate` in context, which
 * allows every call unless one is provided. Its settings are the agent's
 * (`Agent.CurrentSettings`) but for those `options.settings` gives; the
 * providers are acquired here, so an `McpStdio` made without a start-up
 * bound takes the agent's `plugin_startup_timeout_ms` too.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R>(options: Options<R>): Effect.Effect<PluginToolbox, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    const settings: ToolSettings = { ...(yield* Agent.CurrentSettings), ...options.settings }
    const gate = yield* Gate.Gate
    const entries: Array<Entry> = []
    for (const acquire of options.providers) entries.push(yield* makeEntry(settings, acquire))
    const box: Box = { settings, gate, entries, routes: yield* Ref.make<ReadonlyMap<string, Entry>>(new Map()) }
    const invoke = invokeWith(box)
    return {
      definitions: definitionsOf(box),
      // The one rule of a toolbox: nothing but interruption escapes `invoke`.
      invoke: (call) =>
        Effect.catchCause(invoke(call), (cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(Cause.fromReasons<never>(cause.reasons.filter(Cause.isInterruptReason)))
            : Effect.succeed(
                errorResult(settings, call, `Tool "${call.name}" failed unexpectedly: ${Cause.pretty(cause)}`)
              )
        ),
      // Nothing a run started may outlive its interruption: every provider is reset (its
      // process group killed) and starts afresh on its next use.
      onRunInterrupted: Effect.forEach(entries, (entry) => entry.provider.reset("the run was interrupted"), {
        concurrency: "unbounded",
        discard: true
      }),
      breakers: new Map(entries.map((entry) => [entry.provider.name, entry.breaker] as const))
    }
  })

// The reason a breaker_changed event carries: short, since the full text went to the model.
const brief = (error: PluginError.PluginError): string =>
  error._tag === "ProcessCrashed"
    ? `process_crashed (${error.status}, pid ${error.pid})`
    : `${error.category}: ${firstLine(error.message)}`

const firstLine = (text: string): string => {
  const line = text.split("\n", 1)[0] ?? ""
  return line.length > 200 ? `${line.slice(0, 200)}...` : line
}

/**
 * The toolbox as a layer: providers start lazily and are stopped when the
 * layer's scope (the session) closes.
 *
 * @example
 * ```ts
 * import { Gate, McpStdio, PluginToolbox } from "@agent-kernel/plugins"
 * import { NodeServices } from "@effect/platform-node"
 * import { Layer } from "effect"
 *
 * const ToolsLive = PluginToolbox.layer({
 *   providers: [McpStdio.make({ name: "everything", command: "mcp-server-everything" })],
 *   settings: { tool_timeout_ms: 30_000 }
 * }).pipe(Layer.provide([NodeServices.layer, Gate.layerRules({ deny: [{ tool: "trigger-*" }] })]))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R>(options: Options<R>): Layer.Layer<Toolbox.Toolbox, never, Exclude<R, Scope.Scope>> =>
  Layer.effect(Toolbox.Toolbox, make(options))
