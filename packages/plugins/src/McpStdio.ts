/**
 * MCP servers over stdio, as tool providers.
 *
 * Each server is a subprocess started with @effect/platform `Command` (in its
 * own process group), as a resource of the scope `make` runs in: lazily on
 * first use, and again lazily after a crash. The protocol goes through the
 * official SDK `Client` over a transport of our own.
 *
 * A crash is detected from the child's exit, not from its pipes closing: a
 * grandchild may hold the pipes open for seconds, or forever. On exit every
 * in-flight call fails at once with `ProcessCrashed` (exit code or signal,
 * and the stderr tail) and the whole process group is killed. When the
 * server runs under a launcher that outlives it (`bash -c 'node server;
 * sleep 30'`), the members of the group are watched as well (Linux, /proc).
 *
 * @since 0.1.0
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import { EventBus } from "@agent-kernel/kernel"
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as PlatformError from "@effect/platform/Error"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as FiberRef from "effect/FiberRef"
import * as Exit from "effect/Exit"
import * as MutableRef from "effect/MutableRef"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as content from "./internal/content.js"
import * as group from "./internal/processGroup.js"
import { StdioTransport } from "./internal/stdioTransport.js"
import * as PluginError from "./PluginError.js"
import * as ToolProvider from "./ToolProvider.js"

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
   * Watch every process of the group seen after the handshake, not only the
   * one we spawned, and treat the exit of any as a crash. This is what
   * catches a server dying under a launcher that lives on. Default true
   * (Linux only: it reads /proc).
   */
  readonly watchGroup?: boolean | undefined
  /** How often the group is checked while watched. Default 10 ms. */
  readonly groupPollMillis?: number | undefined
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
  /** Lines on stdout that were not JSON-RPC, over every process so far. */
  readonly junkLines: number
  /** The running server's pid (its process group id), if one is running. */
  readonly pid: number | undefined
  /** The protocol version negotiated with the running server. */
  readonly protocolVersion: string | undefined
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

type End =
  | {
      readonly _tag: "Exited"
      readonly pid: number
      readonly exitCode: number | null
      readonly signal: string | null
      readonly detail?: string
    }
  | { readonly _tag: "Stopped"; readonly reason: string }

interface Connection {
  readonly pid: number
  readonly scope: Scope.CloseableScope
  readonly client: Client
  readonly transport: StdioTransport
  readonly ended: Deferred.Deferred<End>
  readonly stderr: group.TailBuffer
  readonly mode: { graceful: boolean }
}

// The SDK's own request timer runs on the wall clock; ours runs on Effect's Clock (see PluginToolbox).
const NO_SDK_TIMEOUT = 2_147_483_647
const MAX_PAGES = 1000

const Arguments = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const signalOf = (error: PlatformError.PlatformError): string => {
  // platform-node reports a signal exit only as the text of a SystemError.
  const text = error._tag === "SystemError" ? (error.description ?? error.message) : error.message
  return /signal:?\s*(SIG[A-Z0-9]+)/.exec(text)?.[1] ?? "unknown signal"
}

const exitOf = (
  result: Either.Either<CommandExecutor.ExitCode, PlatformError.PlatformError>
): { readonly exitCode: number | null; readonly signal: string | null } =>
  result._tag === "Right" ? { exitCode: result.right, signal: null } : { exitCode: null, signal: signalOf(result.left) }

const highestBit = (n: number): number => 31 - Math.clz32(n)

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Declares an MCP stdio server. Nothing is started until the first `list`
 * or `call`; every process is killed when the scope closes.
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
export const make = (config: Config): Effect.Effect<McpStdio, never, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function* () {
    const executor = yield* CommandExecutor.CommandExecutor
    const sessionScope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    const current = yield* Ref.make<Connection | undefined>(undefined)
    const counters = yield* Ref.make({ spawns: 0, crashes: 0, junkLines: 0 })
    // Set from the SDK's notification callback, outside any fiber.
    const toolsChanged = MutableRef.make(false)
    const provider = config.name
    const stderrTailBytes = config.stderrTailBytes ?? 4096
    const maxMessageBytes = config.maxMessageBytes ?? 64 * 1024 * 1024
    const grace = config.shutdownGraceMillis ?? 1000
    const pollMillis = config.groupPollMillis ?? 10
    const watchGroup = (config.watchGroup ?? true) && group.hasProc
    const commandLine = [config.command, ...(config.args ?? [])].join(" ")

    const command = Command.make(config.command, ...(config.args ?? [])).pipe(
      Command.env(environment(config), { extendEnv: false }),
      (c) => (config.cwd === undefined ? c : Command.workingDirectory(c, config.cwd))
    )

    const endError = (conn: Connection, end: End, during: "startup" | "call"): PluginError.PluginError =>
      end._tag === "Stopped"
        ? new PluginError.Stopped({ provider, reason: end.reason })
        : new PluginError.ProcessCrashed({
            provider,
            pid: end.pid,
            exitCode: end.exitCode,
            signal: end.signal,
            stderrTail: conn.stderr.text(),
            during,
            ...(end.detail === undefined ? {} : { detail: end.detail })
          })

    // Whatever the call was doing, once the process is gone its outcome is the process's end.
    const guard = <A>(
      conn: Connection,
      during: "startup" | "call",
      effect: Effect.Effect<A, PluginError.PluginError>
    ): Effect.Effect<A, PluginError.PluginError> => {
      const ended = Effect.flatMap(Deferred.await(conn.ended), (end) => Effect.fail(endError(conn, end, during)))
      return Effect.raceFirst(
        Effect.catchAll(effect, (error) =>
          Effect.flatMap(Deferred.isDone(conn.ended), (done) => (done ? ended : Effect.fail(error)))
        ),
        ended
      )
    }

    const start = (scope: Scope.CloseableScope, mode: { graceful: boolean }) =>
      Effect.gen(function* () {
        const proc = yield* executor.start(command).pipe(
          Scope.extend(scope),
          Effect.mapError(
            (error) =>
              new PluginError.SpawnFailed({
                provider,
                command: commandLine,
                reason: error._tag === "SystemError" ? `${error.reason}: ${error.description ?? ""}` : error.message
              })
          )
        )
        const pid = proc.pid
        yield* Ref.update(counters, (c) => ({ ...c, spawns: c.spawns + 1 }))
        const ended = yield* Deferred.make<End>()
        const stderr = new group.TailBuffer(stderrTailBytes)
        const stderrDone = yield* Deferred.make<void>()
        const stdin = yield* Queue.unbounded<Uint8Array>()
        const transport = new StdioTransport({
          write: (bytes) => Queue.unsafeOffer(stdin, bytes),
          maxMessageBytes
        })
        const fork = <A, E>(effect: Effect.Effect<A, E>) => Effect.forkIn(Effect.ignore(effect), scope)

        // Writing to a dead child fails with EPIPE; the exit watcher reports the death.
        yield* fork(Stream.run(Stream.fromQueue(stdin), proc.stdin))
        yield* fork(
          Stream.runForEach(proc.stderr, (chunk) => Effect.sync(() => stderr.append(chunk))).pipe(
            Effect.ensuring(Deferred.succeed(stderrDone, undefined))
          )
        )

        const died = (end: End) =>
          Effect.gen(function* () {
            if (yield* Deferred.isDone(ended)) return
            // A crashed plugin's group gets no grace: a grandchild may be holding the pipes.
            group.killGroup(pid, "SIGKILL")
            // What it wrote just before dying is the most useful part of the report.
            yield* Effect.raceFirst(Deferred.await(stderrDone), group.wallSleep(50))
            if (yield* Deferred.succeed(ended, end)) {
              yield* Ref.update(counters, (c) => ({ ...c, crashes: c.crashes + 1 }))
            }
            transport.shutdown()
          })

        yield* fork(
          Effect.flatMap(Effect.either(proc.exitCode), (result) => died({ _tag: "Exited", pid, ...exitOf(result) }))
        )
        // stdout closing is only a hint (a grandchild may hold it, or never close it): if the
        // server is already a zombie its status is final, and Node's exit event may still be on its way.
        const stdoutClosed = Effect.suspend(() => {
          const exit = group.zombieExit(pid)
          return exit === undefined ? Effect.void : died({ _tag: "Exited", pid, ...exit })
        })
        yield* fork(
          Stream.runForEach(proc.stdout, (chunk) =>
            Effect.suspend(() => {
              const before = transport.junkLines
              transport.feed(chunk)
              const after = transport.junkLines
              if (after === before) return Effect.void
              return Effect.zipRight(
                Ref.update(counters, (c) => ({ ...c, junkLines: c.junkLines + after - before })),
                // Reported, not fatal; warn on the 1st, 2nd, 4th, 8th... line so a chatty server cannot flood.
                highestBit(after) > highestBit(before)
                  ? EventBus.publish({
                      type: "warning",
                      message: `plugin "${provider}" printed a line on stdout that is not JSON-RPC (${after} so far): ${transport.lastJunk}`
                    })
                  : Effect.void
              )
            })
          ).pipe(Effect.ignore, Effect.zipRight(stdoutClosed))
        )

        // Added last, so it runs first on close: readers still drain while we stop the process.
        yield* Scope.addFinalizer(
          scope,
          Effect.gen(function* () {
            yield* Deferred.succeed(ended, { _tag: "Stopped", reason: "the session closed" })
            transport.shutdown()
            // Finalizers are uninterruptible, and a race must interrupt its loser.
            const exited = Effect.interruptible(
              Effect.raceFirst(Effect.as(Effect.either(proc.exitCode), true), group.wallSleep(grace))
            )
            // Per the MCP spec: close stdin, wait, SIGTERM, wait, SIGKILL. A server that failed its
            // startup or tripped its breaker is broken: it gets no grace.
            yield* Queue.shutdown(stdin)
            if (!mode.graceful) {
              group.killGroup(pid, "SIGKILL")
              yield* exited
            } else if (!(yield* Effect.map(exited, (done) => done === true))) {
              group.killGroup(pid, "SIGTERM")
              if (!(yield* Effect.map(exited, (done) => done === true))) {
                group.killGroup(pid, "SIGKILL")
                yield* exited
              }
            }
            // Whatever is left of the group (a grandchild that ignored SIGTERM).
            group.killGroup(pid, "SIGKILL")
            // SIGKILLed processes still need CPU to exit; on a loaded machine that takes a while.
            yield* Effect.interruptible(group.awaitGroupGone(pid, Math.max(grace, 5_000)))
          })
        )

        const client = new Client(
          { name: "agent-kernel", version: "0.1.0" },
          {
            capabilities: {},
            // Only mark the list stale: it is fetched again, with every page, when the toolbox next asks.
            listChanged: {
              tools: { autoRefresh: false, debounceMs: 0, onChanged: () => MutableRef.set(toolsChanged, true) }
            }
          }
        )
        // Junk and stray responses are reported by the transport; call failures surface on the call.
        client.onerror = () => {}
        const conn: Connection = { pid, scope, client, transport, ended, stderr, mode }
        yield* guard(
          conn,
          "startup",
          Effect.tryPromise({
            try: () => client.connect(transport, { timeout: NO_SDK_TIMEOUT }),
            catch: (error) =>
              new PluginError.ProtocolError({ provider, reason: `handshake failed: ${describeError(error)}` })
          })
        )

        if (watchGroup) {
          const launched = group.groupMembers(pid).filter((member) => member.pid !== pid)
          if (launched.length > 0) {
            const poll: Effect.Effect<void> = Effect.suspend(() => {
              const gone = launched.find((member) => !group.isAlive(member.pid))
              return gone === undefined
                ? Effect.zipRight(group.wallSleep(pollMillis), poll)
                : died({
                    _tag: "Exited",
                    pid: gone.pid,
                    exitCode: null,
                    signal: null,
                    detail: `Process ${gone.pid} (${gone.command}) of its process group exited while its launcher (pid ${pid}) kept running; the group was killed`
                  })
            })
            yield* fork(poll)
          }
        }
        return conn
      })

    const connection: Effect.Effect<Connection, PluginError.PluginError> = lock.withPermits(1)(
      Effect.gen(function* () {
        const existing = yield* Ref.get(current)
        if (existing !== undefined) {
          if (!(yield* Deferred.isDone(existing.ended))) return existing
          yield* Ref.set(current, undefined)
          yield* Scope.close(existing.scope, Exit.void)
        }
        const scope = yield* Scope.fork(sessionScope, ExecutionStrategy.sequential)
        const mode = { graceful: true }
        const conn = yield* start(scope, mode).pipe(
          Effect.onExit((exit) =>
            Exit.isSuccess(exit)
              ? Effect.void
              : Effect.suspend(() => {
                  // A server that failed to start is broken: it gets no grace.
                  mode.graceful = false
                  return Scope.close(scope, exit)
                })
          )
        )
        yield* Ref.set(current, conn)
        return conn
      })
    )

    // Interruption aborts the request: the SDK then sends notifications/cancelled with our reason and drops any late answer.
    const request = <A>(tool: string, run: (signal: AbortSignal) => Promise<A>) =>
      Effect.flatMap(FiberRef.get(ToolProvider.CancelReason), (reason) =>
        Effect.async<A, PluginError.PluginError>((resume) => {
          const controller = new AbortController()
          run(controller.signal).then(
            (value) => resume(Effect.succeed(value)),
            (error) => resume(Effect.fail(fromRequestError(provider, tool, error)))
          )
          return Effect.sync(() => controller.abort(reason()))
        })
      )

    const list = Effect.flatMap(connection, (conn) =>
      // Cleared before asking, so a change announced while the pages come in is not lost.
      Effect.zipRight(
        Effect.sync(() => MutableRef.set(toolsChanged, false)),
        listFrom(conn)
      )
    )

    const listFrom = (conn: Connection) =>
      guard(
        conn,
        "call",
        Effect.gen(function* () {
          const tools: Array<ModelProvider.ToolDefinition> = []
          const seen = new Set<string>()
          let cursor: string | undefined
          for (let page = 0; page < MAX_PAGES; page++) {
            const result = yield* request("tools/list", (signal) =>
              conn.client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: NO_SDK_TIMEOUT })
            )
            for (const tool of result.tools) {
              tools.push({
                name: tool.name,
                description: tool.description ?? tool.title ?? "",
                input_schema: tool.inputSchema
              })
            }
            cursor = result.nextCursor
            // A server that repeats a cursor would page forever.
            if (cursor === undefined || seen.has(cursor)) break
            seen.add(cursor)
          }
          return tools
        })
      )

    const call = Effect.fn("McpStdio.call")(function* (tool: string, input: unknown) {
      const args = yield* Schema.decodeUnknown(Arguments)(input ?? {}).pipe(
        Effect.mapError(
          () => new PluginError.InvalidInput({ provider, tool, issues: "the arguments must be a JSON object" })
        )
      )
      const conn = yield* connection
      const result = yield* guard(
        conn,
        "call",
        request(tool, (signal) =>
          conn.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: NO_SDK_TIMEOUT })
        )
      )
      const text = content.renderCallResult(result)
      if (content.isErrorResult(result)) return yield* new PluginError.ToolFailed({ provider, tool, text })
      return text
    })

    // Never spawns: a liveness check of the running server, if any.
    const ping = Effect.gen(function* () {
      const conn = yield* Ref.get(current)
      if (conn === undefined || (yield* Deferred.isDone(conn.ended))) return false
      return yield* guard(
        conn,
        "call",
        request("ping", (signal) => conn.client.ping({ signal, timeout: NO_SDK_TIMEOUT }))
      ).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    })

    const reset = (reason: string) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const conn = yield* Ref.getAndSet(current, undefined)
          if (conn === undefined) return
          yield* Deferred.succeed(conn.ended, { _tag: "Stopped", reason })
          conn.mode.graceful = false
          yield* Scope.close(conn.scope, Exit.void)
        })
      )

    const stats = Effect.gen(function* () {
      const c = yield* Ref.get(counters)
      const conn = yield* Ref.get(current)
      const live = conn !== undefined && !(yield* Deferred.isDone(conn.ended))
      return {
        ...c,
        pid: live ? conn.pid : undefined,
        protocolVersion: live ? conn.transport.protocolVersion : undefined
      }
    })

    const changed = Effect.sync(() => MutableRef.get(toolsChanged))

    return { name: provider, list, changed, call, reset, stats, ping }
  })

const fromRequestError = (provider: string, tool: string, error: unknown): PluginError.PluginError => {
  if (error instanceof McpError) {
    // Invalid params is the model's to fix (an unknown tool, a bad argument); any other error is the server's.
    if (error.code === ErrorCode.InvalidParams) {
      return new PluginError.InvalidInput({ provider, tool, issues: error.message })
    }
    return new PluginError.ProtocolError({ provider, code: error.code, reason: error.message })
  }
  return new PluginError.ProtocolError({ provider, reason: describeError(error) })
}
