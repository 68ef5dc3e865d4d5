/**
 * One MCP session with one plugin process: the process (internal/pluginProcess), our stdio
 * transport, and the SDK `Client` over it, opened in a scope. Every request goes through
 * `request`, which is where a request failed by the process's end becomes that end.
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as PluginError from "../PluginError.js"
import * as ToolProvider from "../ToolProvider.js"
import type * as content from "./content.js"
import * as PluginProcess from "./pluginProcess.js"
import { StdioTransport } from "./stdioTransport.js"

// The SDK's own request timer runs on the wall clock; ours runs on Effect's Clock (see PluginToolbox).
const NO_SDK_TIMEOUT = 2_147_483_647
const MAX_PAGES = 1000

/** @internal */
export interface Options {
  readonly provider: string
  readonly command: ChildProcess.Command
  readonly maxMessageBytes: number
  readonly stderrTailBytes: number
  readonly shutdownGraceMillis: number
  /** The bound of each start-up request: `initialize`, and the first `tools/list` of the process. */
  readonly startupTimeoutMillis: number
  /** Watch the launched members of the process group after the handshake. */
  readonly watchGroup: boolean
  readonly groupPollMillis: number
  readonly descendantPollMillis: number
  readonly onStarted: Effect.Effect<void>
  readonly onCrashed: Effect.Effect<void>
  /** `added` bad lines were just skipped, `total` so far on this connection; `last` describes the last. */
  readonly onBadLines: (added: number, total: number, last: string) => Effect.Effect<void>
  /** Called outside any fiber, from the SDK's notification handler. */
  readonly onToolsChanged: () => void
}

/** @internal */
export interface Connection {
  readonly provider: string
  readonly proc: PluginProcess.Proc
  readonly scope: Scope.Closeable
  readonly client: Client
  readonly transport: StdioTransport
  /** Until its first `tools/list` is answered, the process is still starting. */
  readonly toolsListed: Ref.Ref<boolean>
  readonly startupTimeoutMillis: number
}

const feed = (transport: StdioTransport, options: Options) => (chunks: ReadonlyArray<Uint8Array>) =>
  Effect.suspend(() => {
    const before = transport.badLines
    for (const chunk of chunks) transport.feed(chunk)
    const after = transport.badLines
    return after === before ? Effect.void : options.onBadLines(after - before, after, transport.lastBadLine)
  })

/**
 * Starts the process in `scope` and completes the MCP handshake. The scope's close stops the
 * process; the caller closes it when this fails.
 * @internal
 */
export const open = (
  options: Options,
  scope: Scope.Closeable
): Effect.Effect<
  Connection,
  PluginError.PluginError,
  ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem
> =>
  Effect.gen(function* () {
    const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const transport = new StdioTransport({
      write: (bytes) => {
        Queue.offerUnsafe(stdin, bytes)
      },
      maxMessageBytes: options.maxMessageBytes
    })
    const proc = yield* PluginProcess.spawn({
      provider: options.provider,
      command: options.command,
      stderrTailBytes: options.stderrTailBytes,
      shutdownGraceMillis: options.shutdownGraceMillis,
      groupPollMillis: options.groupPollMillis,
      descendantPollMillis: options.descendantPollMillis,
      stdin,
      onStdout: feed(transport, options),
      onStarted: options.onStarted,
      // The transport's close makes the SDK fail every pending request at once; each maps it to the end.
      onEnd: (end) =>
        Effect.andThen(
          end._tag === "Exited" ? options.onCrashed : Effect.void,
          Effect.sync(() => transport.shutdown())
        )
    }).pipe(Scope.provide(scope))
    const client = new Client(
      { name: "agent-kernel", version: "0.1.0" },
      {
        capabilities: {},
        // Only mark the list stale: it is fetched again, with every page, when the toolbox next asks.
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: options.onToolsChanged } }
      }
    )
    // Bad lines and stray responses are reported by the transport; call failures surface on the call.
    client.onerror = () => {}
    const conn: Connection = {
      provider: options.provider,
      proc,
      scope,
      client,
      transport,
      toolsListed: yield* Ref.make(false),
      startupTimeoutMillis: options.startupTimeoutMillis
    }
    yield* duringStartup(
      conn,
      "initialize",
      request(conn, "startup", "initialize", () => client.connect(transport, { timeout: NO_SDK_TIMEOUT }))
    )
    if (options.watchGroup) yield* proc.watchGroup
    return conn
  })

/**
 * A start-up request under the start-up bound (Effect's Clock): past it the
 * request is cancelled and the start fails with `StartupTimeout`.
 */
const duringStartup = <A>(
  conn: Connection,
  name: "initialize" | "tools/list",
  effect: Effect.Effect<A, PluginError.PluginError>
): Effect.Effect<A, PluginError.PluginError> => {
  const millis = conn.startupTimeoutMillis
  return effect.pipe(
    Effect.provideService(ToolProvider.CancelReason, () => `the plugin did not start within ${millis} ms`),
    Effect.timeoutOrElse({
      duration: Duration.millis(millis),
      orElse: () =>
        Effect.fail(
          new PluginError.StartupTimeout({
            provider: conn.provider,
            request: name,
            timeoutMillis: millis,
            stderrTail: conn.proc.stderrTail()
          })
        )
    })
  )
}

/**
 * What a request fails with once the process has ended: a crash (with the stderr tail) or a stop.
 * @internal
 */
export const endError = (
  conn: Connection,
  end: PluginProcess.End,
  during: "startup" | "call"
): PluginError.PluginError =>
  end._tag === "Stopped"
    ? new PluginError.Stopped({ provider: conn.provider, reason: end.reason })
    : new PluginError.ProcessCrashed({
        provider: conn.provider,
        pid: end.pid,
        exitCode: end.exitCode,
        signal: end.signal,
        stderrTail: conn.proc.stderrTail(),
        during,
        ...(end.detail === undefined ? {} : { detail: end.detail })
      })

/**
 * Runs one SDK request. Interruption aborts it: the SDK then sends notifications/cancelled with our
 * reason and drops any late answer. Whatever the request was doing, once the process is gone its
 * outcome is the process's end.
 * @internal
 */
export const request = <A>(
  conn: Connection,
  during: "startup" | "call",
  tool: string,
  run: (signal: AbortSignal) => Promise<A>
): Effect.Effect<A, PluginError.PluginError> =>
  Effect.flatMap(Effect.service(ToolProvider.CancelReason), (reason) =>
    Effect.callback<A, unknown>((resume) => {
      const controller = new AbortController()
      run(controller.signal).then(
        (value) => resume(Effect.succeed(value)),
        (error: unknown) => resume(Effect.fail(error))
      )
      return Effect.sync(() => controller.abort(reason()))
    })
  ).pipe(
    // Decided only now, so a call failed by a crash builds one error, the crash's.
    Effect.catch((error) =>
      Effect.flatMap(Deferred.poll(conn.proc.ended), (end) =>
        end._tag === "Some"
          ? Effect.flatMap(end.value, (how) => Effect.fail(endError(conn, how, during)))
          : Effect.fail(fromRequestError(conn.provider, tool, error))
      )
    )
  )

/**
 * Every page of the server's tools. The first listing of a process is part of
 * its start, under the start-up bound.
 * @internal
 */
export const listTools = (
  conn: Connection
): Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>, PluginError.PluginError> =>
  Effect.flatMap(Ref.get(conn.toolsListed), (listed) =>
    listed
      ? allPages(conn)
      : Effect.tap(duringStartup(conn, "tools/list", allPages(conn)), () => Ref.set(conn.toolsListed, true))
  )

const allPages = (
  conn: Connection
): Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>, PluginError.PluginError> =>
  Effect.gen(function* () {
    const tools: Array<ModelProvider.ToolDefinition> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = yield* request(conn, "call", "tools/list", (signal) =>
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

/** @internal */
export const callTool = (
  conn: Connection,
  tool: string,
  args: Readonly<Record<string, unknown>>
): Effect.Effect<content.CallResult, PluginError.PluginError> =>
  request(conn, "call", tool, (signal) =>
    conn.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: NO_SDK_TIMEOUT })
  )

/** MCP `ping`. @internal */
export const ping = (conn: Connection): Effect.Effect<unknown, PluginError.PluginError> =>
  request(conn, "call", "ping", (signal) => conn.client.ping({ signal, timeout: NO_SDK_TIMEOUT }))

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * A request's failure as the model should read it.
 * @internal
 */
export const fromRequestError = (provider: string, tool: string, error: unknown): PluginError.PluginError => {
  if (error instanceof McpError) {
    // Invalid params is the model's to fix (an unknown tool, a bad argument); any other error is the server's.
    if (error.code === ErrorCode.InvalidParams) {
      return new PluginError.InvalidInput({ provider, tool, issues: error.message })
    }
    return new PluginError.ProtocolError({ provider, code: error.code, reason: error.message })
  }
  return new PluginError.ProtocolError({ provider, reason: describeError(error) })
}
