/**
 * MCP servers over stdio, as tool providers.
 *
 * Each server is a subprocess described by an `effect/process` `Command` and
 * started (in its own process group) by the `ProcessSpawner` in context, as
 * a resource of the scope `make` runs in: lazily on first use, and again
 * lazily after a crash. The protocol goes through the official SDK `Client`
 * over a transport of our own. The process itself (watching it, tracking its
 * descendants, stopping it) is `internal/pluginProcess.ts`; this module is
 * the MCP side.
 *
 * A crash is the first sign of death, not the pipes closing: the child's
 * exit, or end of file on a pipe while /proc shows the child a zombie (a
 * grandchild may hold the pipes open for seconds, or forever). Every
 * in-flight call then fails at once with `ProcessCrashed` (exit code or
 * signal, and the stderr tail), and the group and every tracked descendant
 * are killed. When the server runs under a launcher that outlives it
 * (`bash -c 'node server; sleep 30'`), the processes that read its requests
 * are watched as well (Linux, /proc); a helper it or its launcher started
 * (`sh -c 'sleep 1 & exec server'`, git, ripgrep) may end as it likes.
 * Nothing it started outlives the scope on Linux: its group, its session,
 * its descendants and whatever still holds its stdio are killed.
 *
 * @since 0.1.0
 */
import { Agent, EventBus } from "@agent-kernel/kernel"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import * as MutableRef from "effect/MutableRef"
import * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as content from "./internal/content.js"
import * as McpConnection from "./internal/mcpConnection.js"
import * as PluginError from "./PluginError.js"
import type * as ToolProvider from "./ToolProvider.js"

/**
 * How to run one MCP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** The provider's name, as shown to the model and in `breaker_changed`. */
  readonly name: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  /** Variables set for the server, on top of the minimal environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Host variables passed through by name (an API key the server needs, say). */
  readonly inheritEnv?: ReadonlyArray<string> | undefined
  /** How much of stderr to keep for crash reports. Default 4096 bytes. */
  readonly stderrTailBytes?: number | undefined
  /** A stdout line longer than this is discarded. Default 64 MiB. */
  readonly maxMessageBytes?: number | undefined
  /** Wall-clock wait after closing stdin, then after SIGTERM, before escalating. Default 1000 ms. */
  readonly shutdownGraceMillis?: number | undefined
  /**
   * How long a starting server may take to answer `initialize`, and then the
   * first `tools/list` of its process, each (Effect's Clock). Past it the
   * server is killed and the request fails with `StartupTimeout`. Default:
   * the agent's `plugin_startup_timeout_ms` (`Agent.CurrentSettings`, read
   * when `make` runs: inside `Agent.layer`, a toolbox Layer's providers see
   * the agent's settings), `defaultStartupTimeoutMillis` (30 s) outside an
   * agent.
   */
  readonly startupTimeoutMillis?: number | undefined
  /**
   * Watch, besides the process we spawned, those that read its requests
   * (they hold its stdin) after the handshake, and treat the exit of any as
   * a crash. This is what catches a server dying under a launcher that lives
   * on; a helper started in the background reads nothing and is not
   * watched. Default true (Linux only: it reads /proc).
   */
  readonly watchGroup?: boolean | undefined
  /** How often they are checked while watched. Default 10 ms. */
  readonly groupPollMillis?: number | undefined
  /**
   * Track the server's descendants by parent pid while it lives, so that one
   * that left the process group (`setsid`, a daemon) is ended with the rest.
   * Default true (Linux only: it reads /proc). As it stops, /proc is swept
   * for what it started whatever this says: its session, its group, and the
   * holders of its stdio.
   */
  readonly trackDescendants?: boolean | undefined
  /** How often descendants are looked for. Default 100 ms. */
  readonly descendantPollMillis?: number | undefined
}

/**
 * Counters, for reports and tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  /** Processes started (a respawn after a crash counts again). */
  readonly spawns: number
  readonly crashes: number
  /** Lines on stdout that were skipped (not JSON-RPC, oversize, or failing to be handled), over every process so far. */
  readonly junkLines: number
  /** The running server's pid (its process group id), if one is running. */
  readonly pid: number | undefined
  /** The protocol version negotiated with the running server. */
  readonly protocolVersion: string | undefined
  /** The running server's descendants being tracked, in its group or not. */
  readonly descendants: ReadonlyArray<number>
}

/**
 * An MCP stdio provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpStdio extends ToolProvider.ToolProvider {
  readonly stats: Effect.Effect<Stats>
  /** Pings the running server (MCP `ping`); `false` when none is running or it does not answer. Never spawns. */
  readonly ping: Effect.Effect<boolean>
}

/**
 * The host variables every server gets: PATH, HOME and the locale. Anything
 * else (API keys above all) must be named in `inheritEnv` or set in `env`.
 *
 * @since 0.1.0
 * @category constants
 */
export const baseEnvironment: ReadonlyArray<string> = ["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR"]

/**
 * The environment a server is started with.
 *
 * @since 0.1.0
 * @category constructors
 */
export const environment = (
  config: Pick<Config, "env" | "inheritEnv">,
  host: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> => {
  const passed = new Set([...baseEnvironment, ...(config.inheritEnv ?? [])])
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(host)) {
    if (value !== undefined && (passed.has(key) || key.startsWith("LC_"))) result[key] = value
  }
  return { ...result, ...config.env }
}

/**
 * The default start-up bound of a server (`Config.startupTimeoutMillis`)
 * outside an agent: 30 s, `Settings.defaults.plugin_startup_timeout_ms`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultStartupTimeoutMillis = 30_000

const Arguments = Schema.Record(Schema.String, Schema.Unknown)

const highestBit = (n: number): number => 31 - Math.clz32(n)

interface Counters {
  readonly spawns: number
  readonly crashes: number
  readonly junkLines: number
}

/** What each connection of a server is opened with: the config's command and bounds, and the hooks that count. */
const connectionOptions = (
  config: Config,
  startupTimeoutMillis: number,
  counters: Ref.Ref<Counters>,
  toolsChanged: MutableRef.MutableRef<boolean>
): McpConnection.Options => ({
  provider: config.name,
  command: ChildProcess.make(config.command, config.args ?? [], {
    env: environment(config),
    extendEnv: false,
    cwd: config.cwd,
    // What is still running when its scope closes is killed, not asked (the shutdown asked already).
    killSignal: "SIGKILL"
  }),
  maxMessageBytes: config.maxMessageBytes ?? 64 * 1024 * 1024,
  stderrTailBytes: config.stderrTailBytes ?? 4096,
  shutdownGraceMillis: config.shutdownGraceMillis ?? 1000,
  startupTimeoutMillis,
  watchGroup: config.watchGroup ?? true,
  groupPollMillis: config.groupPollMillis ?? 10,
  descendantPollMillis: (config.trackDescendants ?? true) ? (config.descendantPollMillis ?? 100) : 0,
  onStarted: Ref.update(counters, (c) => ({ ...c, spawns: c.spawns + 1 })),
  onCrashed: Ref.update(counters, (c) => ({ ...c, crashes: c.crashes + 1 })),
  // Reported, never fatal; warned about on the 1st, 2nd, 4th, 8th... so a chatty server cannot flood.
  onBadLines: (added, total, last) =>
    Effect.andThen(
      Ref.update(counters, (c) => ({ ...c, junkLines: c.junkLines + added })),
      highestBit(total) > highestBit(total - added)
        ? EventBus.publish({
            type: "warning",
            message: `plugin "${config.name}" wrote a bad line on stdout (${total} so far), which was skipped: ${last}`
          })
        : Effect.void
    ),
  onToolsChanged: () => MutableRef.set(toolsChanged, true)
})

/**
 * Declares an MCP stdio server. Nothing is started until the first `list`
 * or `call`; every process is killed when the scope closes. The process is
 * started by the `ProcessSpawner` in context: by default through the
 * `ChildProcessSpawner` in context, or, on Node, straight from
 * `child_process` with `NodeProcessSpawner` (`@agent-kernel/plugins/node`),
 * which sees a crash sooner. /proc is read through the `FileSystem` in
 * context (`NodeServices.layer`, or `NodeProcessSpawner.layer`, provides
 * both). The spawner is the one in context when `make` runs, and so are
 * the settings a start-up bound not given comes from (`Agent.CurrentSettings`).
 *
 * @example
 * ```ts
 * import { McpStdio } from "@agent-kernel/plugins"
 *
 * const everything = McpStdio.make({
 *   name: "everything",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything"],
 *   inheritEnv: ["NPM_CONFIG_REGISTRY"]
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  config: Config
): Effect.Effect<McpStdio, never, ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function* () {
    const services = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem>()
    const sessionScope = yield* Effect.scope
    const lock = yield* Semaphore.make(1)
    const current = yield* Ref.make<McpConnection.Connection | undefined>(undefined)
    const counters = yield* Ref.make<Counters>({ spawns: 0, crashes: 0, junkLines: 0 })
    // Set from the SDK's notification callback, outside any fiber.
    const toolsChanged = MutableRef.make(false)
    const provider = config.name
    const startupTimeoutMillis = config.startupTimeoutMillis ?? (yield* Agent.CurrentSettings).plugin_startup_timeout_ms
    const options = connectionOptions(config, startupTimeoutMillis, counters, toolsChanged)

    // A crashed, stopped or broken connection's processes are killed at once (see internal/pluginProcess).
    const connection: Effect.Effect<McpConnection.Connection, PluginError.PluginError> = lock.withPermits(1)(
      Effect.gen(function* () {
        const existing = yield* Ref.get(current)
        if (existing !== undefined) {
          if (!(yield* Deferred.isDone(existing.proc.ended))) return existing
          yield* Ref.set(current, undefined)
          yield* Scope.close(existing.scope, Exit.fail("ended"))
        }
        const scope = yield* Scope.fork(sessionScope, "sequential")
        const conn = yield* McpConnection.open(options, scope).pipe(
          Effect.provide(services),
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) ? Effect.void : Scope.close(scope, Exit.fail("startup failed"))
          )
        )
        yield* Ref.set(current, conn)
        return conn
      })
    )

    const reset = (reason: string) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const conn = yield* Ref.getAndSet(current, undefined)
          if (conn === undefined) return
          yield* conn.proc.stop(reason)
          yield* Scope.close(conn.scope, Exit.fail(reason))
        })
      )

    // Cleared before asking, so a change announced while the pages come in is not lost.
    const list = Effect.flatMap(connection, (conn) =>
      Effect.andThen(
        Effect.sync(() => MutableRef.set(toolsChanged, false)),
        // A server that never finished starting is stopped; the next use starts it afresh.
        Effect.tapError(McpConnection.listTools(conn), (error) =>
          error._tag === "StartupTimeout" ? reset(`it did not answer ${error.request} in time`) : Effect.void
        )
      )
    )

    const call = Effect.fn("McpStdio.call")(function* (tool: string, input: unknown) {
      const args = yield* Schema.decodeUnknownEffect(Arguments)(input ?? {}).pipe(
        Effect.mapError(
          () => new PluginError.InvalidInput({ provider, tool, issues: "the arguments must be a JSON object" })
        )
      )
      const result = yield* McpConnection.callTool(yield* connection, tool, args)
      const text = content.renderCallResult(result)
      if (content.isErrorResult(result)) return yield* new PluginError.ToolFailed({ provider, tool, text })
      return text
    })

    // Never spawns: a liveness check of the running server, if any.
    const ping = Effect.gen(function* () {
      const conn = yield* Ref.get(current)
      if (conn === undefined || (yield* Deferred.isDone(conn.proc.ended))) return false
      return yield* McpConnection.ping(conn).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    })

    const stats = Effect.gen(function* () {
      const c = yield* Ref.get(counters)
      const conn = yield* Ref.get(current)
      const live = conn !== undefined && !(yield* Deferred.isDone(conn.proc.ended))
      return {
        ...c,
        pid: live ? conn.proc.pid : undefined,
        protocolVersion: live ? conn.transport.protocolVersion : undefined,
        descendants: live ? yield* conn.proc.descendants : []
      }
    })

    const changed = Effect.sync(() => MutableRef.get(toolsChanged))

    return { name: provider, list, changed, call, reset, stats, ping }
  })
