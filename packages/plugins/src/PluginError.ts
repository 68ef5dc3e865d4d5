/**
 * Plugin errors: why a tool call did not produce a result.
 *
 * Every member has a snake_case `category`, a `message` written for the model
 * (it becomes the text of an `is_error` tool_result) and `countsTowardBreaker`:
 * failures of the provider itself (crashes, timeouts, denials, spawn and
 * protocol failures, defects) count; failures the model can fix by changing
 * its call (bad arguments, a tool that answered with an error) do not.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every plugin error category. A crash is `process_crashed`, the category the
 * spec names for a crashed plugin subprocess.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Category = Schema.Literals([
  "process_crashed",
  "timeout",
  "spawn_failed",
  "protocol_error",
  "denied",
  "breaker_open",
  "stopped",
  "tool_defect",
  "invalid_input",
  "tool_error",
  "unknown_tool"
])

/**
 * @since 0.1.0
 * @category models
 */
export type Category = typeof Category.Type

const tail = (text: string): string => (text.trim() === "" ? "(empty)" : text.trimEnd())

/**
 * A plugin process exited (or, under a wrapper, a process of its group did)
 * at startup or while calls were in flight. Every in-flight call fails with it
 * at once, and the process group is killed.
 *
 * `exitCode` and `signal` are those of the process that exited (`null` when
 * it is not our child and the OS does not tell us); `detail` says which
 * process it was when it was not the one we spawned.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProcessCrashed extends Schema.TaggedError<ProcessCrashed>("@agent-kernel/plugins/ProcessCrashed")(
  "ProcessCrashed",
  {
    provider: Schema.String,
    pid: Schema.Number,
    exitCode: Schema.NullOr(Schema.Number),
    signal: Schema.NullOr(Schema.String),
    stderrTail: Schema.String,
    during: Schema.Literals(["startup", "call"]),
    detail: Schema.optional(Schema.String)
  }
) {
  /** @since 0.1.0 */
  get category(): "process_crashed" {
    return "process_crashed"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  get status(): string {
    return this.signal !== null
      ? `killed by signal ${this.signal}`
      : this.exitCode !== null
        ? `exit code ${this.exitCode}`
        : "exit status unknown"
  }
  /** @since 0.1.0 */
  override get message(): string {
    const what = this.during === "startup" ? "exited during startup" : "crashed while handling the call"
    const detail = this.detail === undefined ? "" : ` ${this.detail}.`
    return `Plugin "${this.provider}" ${what} (process_crashed: ${this.status}, pid ${this.pid}).${detail}\nstderr (tail):\n${tail(this.stderrTail)}`
  }
}

/**
 * The call did not answer within `tool_timeout_ms`. The plugin was sent
 * `notifications/cancelled`; a late answer is ignored.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolTimeout extends Schema.TaggedError<ToolTimeout>("@agent-kernel/plugins/ToolTimeout")("ToolTimeout", {
  provider: Schema.String,
  tool: Schema.String,
  timeoutMillis: Schema.Number
}) {
  /** @since 0.1.0 */
  get category(): "timeout" {
    return "timeout"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Tool "${this.tool}" of plugin "${this.provider}" timed out after ${this.timeoutMillis} ms; the call was cancelled.`
  }
}

/**
 * The plugin did not finish starting: it did not answer `initialize`, or the
 * first `tools/list` of its process, within its start-up bound
 * (`McpStdio.Config.startupTimeoutMillis`). Its processes were killed; the
 * next use starts it afresh.
 *
 * @since 0.1.0
 * @category errors
 */
export class StartupTimeout extends Schema.TaggedError<StartupTimeout>("@agent-kernel/plugins/StartupTimeout")(
  "StartupTimeout",
  {
    provider: Schema.String,
    request: Schema.Literals(["initialize", "tools/list"]),
    timeoutMillis: Schema.Number,
    stderrTail: Schema.String
  }
) {
  /** @since 0.1.0 */
  get category(): "timeout" {
    return "timeout"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Plugin "${this.provider}" did not answer ${this.request} within ${this.timeoutMillis} ms of starting; it was stopped.\nstderr (tail):\n${tail(this.stderrTail)}`
  }
}

/**
 * The plugin process could not be started (`ENOENT`, `EACCES`, a bad working
 * directory).
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>("@agent-kernel/plugins/SpawnFailed")("SpawnFailed", {
  provider: Schema.String,
  command: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  get category(): "spawn_failed" {
    return "spawn_failed"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Plugin "${this.provider}" could not be started (${this.command}): ${this.reason}`
  }
}

/**
 * The plugin broke the protocol: a failed handshake, a JSON-RPC error other
 * than invalid params, a response that does not decode.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProtocolError extends Schema.TaggedError<ProtocolError>("@agent-kernel/plugins/ProtocolError")(
  "ProtocolError",
  {
    provider: Schema.String,
    reason: Schema.String,
    code: Schema.optional(Schema.Number)
  }
) {
  /** @since 0.1.0 */
  get category(): "protocol_error" {
    return "protocol_error"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    const code = this.code === undefined ? "" : ` (JSON-RPC error ${this.code})`
    return `Plugin "${this.provider}" failed${code}: ${this.reason}`
  }
}

/**
 * The permission gate refused the call.
 *
 * @since 0.1.0
 * @category errors
 */
export class Denied extends Schema.TaggedError<Denied>("@agent-kernel/plugins/Denied")("Denied", {
  provider: Schema.String,
  tool: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  get category(): "denied" {
    return "denied"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Permission denied: tool "${this.tool}" was not run. ${this.reason}`
  }
}

/**
 * The provider's circuit breaker is open: nothing was run or spawned.
 *
 * @since 0.1.0
 * @category errors
 */
export class BreakerOpen extends Schema.TaggedError<BreakerOpen>("@agent-kernel/plugins/BreakerOpen")("BreakerOpen", {
  provider: Schema.String,
  tool: Schema.String,
  reason: Schema.String,
  retryInMillis: Schema.Number
}) {
  /** @since 0.1.0 */
  get category(): "breaker_open" {
    return "breaker_open"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return false
  }
  /** @since 0.1.0 */
  override get message(): string {
    const wait = this.retryInMillis > 0 ? ` It may be retried in ${Math.ceil(this.retryInMillis / 1000)} s.` : ""
    return `Tool "${this.tool}" is unavailable: the circuit breaker of plugin "${this.provider}" is open (${this.reason}), so it was not called.${wait} Use other tools meanwhile.`
  }
}

/**
 * The kernel stopped the plugin (its breaker opened, the session closed)
 * while this call was in flight. The failure that caused it was counted
 * already, so this one is not.
 *
 * @since 0.1.0
 * @category errors
 */
export class Stopped extends Schema.TaggedError<Stopped>("@agent-kernel/plugins/Stopped")("Stopped", {
  provider: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  get category(): "stopped" {
    return "stopped"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return false
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Plugin "${this.provider}" was stopped before the call completed: ${this.reason}`
  }
}

/**
 * An in-process handler died with a defect (a thrown exception, a bug).
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolDefect extends Schema.TaggedError<ToolDefect>("@agent-kernel/plugins/ToolDefect")("ToolDefect", {
  provider: Schema.String,
  tool: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  get category(): "tool_defect" {
    return "tool_defect"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return true
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Tool "${this.tool}" of plugin "${this.provider}" failed unexpectedly: ${this.reason}`
  }
}

/**
 * The arguments did not match the tool's input schema. The model can fix
 * this itself, so it does not count toward the breaker.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>("@agent-kernel/plugins/InvalidInput")(
  "InvalidInput",
  {
    provider: Schema.String,
    tool: Schema.String,
    issues: Schema.String
  }
) {
  /** @since 0.1.0 */
  get category(): "invalid_input" {
    return "invalid_input"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return false
  }
  /** @since 0.1.0 */
  override get message(): string {
    return `Invalid arguments for tool "${this.tool}"; fix them and call it again:\n${this.issues}`
  }
}

/**
 * The tool ran and reported a failure: an MCP result with `isError`, or a
 * typed failure of an in-process handler. `text` is what the tool said.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolFailed extends Schema.TaggedError<ToolFailed>("@agent-kernel/plugins/ToolFailed")("ToolFailed", {
  provider: Schema.String,
  tool: Schema.String,
  text: Schema.String
}) {
  /** @since 0.1.0 */
  get category(): "tool_error" {
    return "tool_error"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return false
  }
  /** @since 0.1.0 */
  override get message(): string {
    return this.text
  }
}

/**
 * No provider offers a tool of that name.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>("@agent-kernel/plugins/UnknownTool")("UnknownTool", {
  tool: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  /** @since 0.1.0 */
  get category(): "unknown_tool" {
    return "unknown_tool"
  }
  /** @since 0.1.0 */
  get countsTowardBreaker(): boolean {
    return false
  }
  /** @since 0.1.0 */
  override get message(): string {
    const available = this.available.length === 0 ? "none" : this.available.join(", ")
    return `Unknown tool "${this.tool}". Available tools: ${available}.`
  }
}

/**
 * Any plugin error.
 *
 * @since 0.1.0
 * @category models
 */
export type PluginError =
  | ProcessCrashed
  | ToolTimeout
  | StartupTimeout
  | SpawnFailed
  | ProtocolError
  | Denied
  | BreakerOpen
  | Stopped
  | ToolDefect
  | InvalidInput
  | ToolFailed
  | UnknownTool

/**
 * The Schema of every plugin error, for logs and session export.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PluginError = Schema.Union([
  ProcessCrashed,
  ToolTimeout,
  StartupTimeout,
  SpawnFailed,
  ProtocolError,
  Denied,
  BreakerOpen,
  Stopped,
  ToolDefect,
  InvalidInput,
  ToolFailed,
  UnknownTool
])
