/**
 * The human timeline's decisions, pure: from what the terminal shows (a
 * `State`), one kernel event and the Clock's time, what to write and the
 * next state. render.ts is the thin shell that writes it and redraws the
 * status line every 100 ms.
 *
 * - The answer streams: each `text_delta` is written as it arrives (when
 *   `View.stream`: always on a TTY, with `--stream` off one). Thinking is
 *   written dimmed with `--thinking`; without it the status line says
 *   "thinking".
 * - The status line (a TTY only): a spinner and the elapsed time while a
 *   model call waits for its first token and while a tool runs, and the
 *   countdown of a retry's wait. It is erased before anything else is written
 *   and drawn again after, and never drawn in the middle of streamed text.
 * - A stream restart: the failed attempt's text is marked discarded by a
 *   line `[stream restarted (CATEGORY): N characters discarded, attempt K]`,
 *   and on a TTY, where the text can be reached, rewritten struck through and
 *   dim, so it never reads as part of the answer.
 */
import type { KernelEvent } from "@agent-kernel/kernel"

/** How the timeline is shown. */
export interface View {
  /** stdout is a terminal: the status line is drawn. */
  readonly tty: boolean
  readonly color: boolean
  /** Write the answer's text as it streams. */
  readonly stream: boolean
  /** Write the model's thinking as it streams, dimmed (`--thinking`). */
  readonly thinking: boolean
  /** The terminal's size, to rewrite a discarded partial answer in place; without it the text is left as written. */
  readonly terminal?: { readonly columns: number; readonly rows: number } | undefined
}

/** A tool call that is running. */
export interface RunningTool {
  readonly id: string
  readonly name: string
  readonly since: number
}

/** What the terminal shows, as far as the next write depends on it. */
export interface State {
  /** A model call waits for its first token of text: since when, and what the status line says it does. */
  readonly waiting: { readonly activity: string; readonly since: number } | undefined
  /** The kernel waits to retry: the attempt it will make, and when. */
  readonly retry: { readonly attempt: number; readonly until: number } | undefined
  readonly tools: ReadonlyArray<RunningTool>
  /** Where the cursor is: at the start of a line, or after streamed text or thinking. */
  readonly cursor: "line_start" | "text" | "thinking"
  /** The text the current attempt has written (as written), which a restart discards. */
  readonly partial: string
  /** Whether `partial` is the last thing on the screen, from the start of a line: a restart can rewrite it. */
  readonly reachable: boolean
  /** The text of the last model response that had text, as written: the run's answer so far. */
  readonly answer: string
  /** Whether the status line is on the screen, to be erased before the next write. */
  readonly statusDrawn: boolean
}

/** Nothing shown yet. */
export const initial: State = {
  waiting: undefined,
  retry: undefined,
  tools: [],
  cursor: "line_start",
  partial: "",
  reachable: true,
  answer: "",
  statusDrawn: false
}

/** What to write, and the state after it. */
export interface Step {
  readonly state: State
  readonly write: string
}

const paint = (enabled: boolean) => {
  const wrap = (code: string) => (text: string) => (enabled ? `\x1b[${code}m${text}\x1b[0m` : text)
  return {
    dim: wrap("2"),
    struck: wrap("2;9"),
    red: wrap("31"),
    green: wrap("32"),
    yellow: wrap("33"),
    cyan: wrap("36"),
    bold: wrap("1")
  }
}

/** The ANSI styles, or none. */
export const styles = paint

/** A duration as people read it: "340 ms", "1.2 s". */
export const seconds = (ms: number) => (ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`)

// C0 and C1 control characters but newline and tab, and Unicode's bidirectional controls (embeddings,
// overrides, isolates, marks): text from a model, a tool or a server must not move the cursor, restyle or
// retitle the terminal, or reorder what it shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it removes.
const unsafe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * Text from a model, a tool or a server as the timeline and the summary write
 * it, on a terminal or not: without the characters above. `--json` keeps the
 * exact text.
 */
export const clean = (text: string): string => text.replace(unsafe, "")

/** The text cleaned and on one line, cut at `max` characters. */
export const oneLine = (text: string, max = 100) => {
  const flat = clean(text).replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** One human line per event, or nothing for events the timeline leaves out. */
export const describe = (event: KernelEvent.KernelEvent, color: boolean): string | undefined => {
  const c = paint(color)
  switch (event.type) {
    case "run_started":
      return c.bold(`▶ run ${event.run_id} on ${clean(event.model)}`)
    case "turn_started":
      return c.dim(`turn ${event.turn}`)
    case "model_request":
      return `  → request ${clean(event.model)}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}: ${
        event.messages
      } messages, ~${event.estimated_tokens} tokens, ${event.tools} tools`
    case "model_response":
      return c.dim(
        `  ← ${event.stop_reason} in ${seconds(event.duration_ms)} (${event.usage.input_tokens} in / ${event.usage.output_tokens} out tokens)`
      )
    case "retry_scheduled":
      return c.yellow(
        `  ↻ ${event.category} (${oneLine(event.message, 60)}): retry ${event.attempt} in ${seconds(event.delay_ms)}${
          event.source === "retry_after" ? " — the server's retry-after" : " — backoff"
        }; session retries used ${event.session_retries_used}`
      )
    case "retry_quota_exhausted":
      return c.red(
        `  ⛔ the provider-wide retry quota refused a retry after ${event.category} on ${clean(event.model)}`
      )
    case "stream_restarted":
      return c.yellow(`  ↺ the stream failed mid-way (${event.category}): the whole request is restarted`)
    case "fallback":
      return c.yellow(`  ⇢ fallback ${clean(event.from)} → ${clean(event.to)} after ${event.category}`)
    case "context_reduced":
      return c.cyan(`  ✂ context reduced: ~${event.before} → ~${event.after} tokens (target ${event.target})`)
    case "content_filtered":
      return c.red(
        `  ⚠ content filtered: ${oneLine(event.message, 200)}${event.partial_text ? `; kept "${oneLine(event.partial_text)}"` : ""}`
      )
    case "tool_call_started":
      return `  ⚙ ${clean(event.name)} …`
    case "tool_result":
      return event.is_error
        ? c.red(`  ✗ ${clean(event.name)} failed after ${seconds(event.duration_ms)}: ${oneLine(event.preview, 160)}`)
        : c.green(`  ✓ ${clean(event.name)} in ${seconds(event.duration_ms)}: ${oneLine(event.preview)}`)
    case "breaker_changed":
      return c.red(
        `  ⛔ breaker for ${clean(event.subject)}: ${event.from} → ${event.to} (${oneLine(event.reason, 200)})`
      )
    case "warning":
      return c.yellow(`  ! ${oneLine(event.message, 200)}`)
    case "run_paused":
      return c.yellow(
        `  ⏸ paused instead of ending ${event.reason} (${event.error.category}: ${oneLine(event.error.message, 120)})${
          event.resume_at === null ? "" : `; resumes at ${new Date(event.resume_at).toISOString()}`
        }`
      )
    case "run_resumed":
      return c.yellow(
        `  ▶ resumed after ${seconds(event.paused_ms)} paused${event.reset_budget ? ", the retry budget reset" : ""}`
      )
    case "text_delta":
    case "thinking_delta":
    case "tool_use_started":
    case "turn_ended":
    case "run_ended":
      return undefined
  }
}

/** The line that marks a failed attempt's streamed text as discarded. */
export const restartMarker = (event: KernelEvent.EventOf<"stream_restarted">): string =>
  `[stream restarted (${event.category}): ${event.discarded_text_chars} characters discarded, attempt ${event.attempt + 1}]`

/** Erases the line the cursor is on (the status line) and returns to its start. */
export const eraseLine = "\r\x1b[K"

const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

/** The spinner's frame at `now`: one step every 100 ms. */
export const frame = (now: number): string => frames[Math.floor(now / 100) % frames.length] ?? "⠋"

const elapsed = (ms: number) => `${(Math.max(0, ms) / 1_000).toFixed(1)} s`

/** What the status line says at `now`, if anything: a retry's countdown, a model call's wait, or a running tool. */
export const status = (state: State, now: number): string | undefined => {
  if (state.retry !== undefined) return `retry ${state.retry.attempt} in ${elapsed(state.retry.until - now)}`
  if (state.waiting !== undefined) return `${state.waiting.activity} ${elapsed(now - state.waiting.since)}`
  const [oldest, ...others] = state.tools
  if (oldest === undefined) return undefined
  const more = others.length > 0 ? ` and ${others.length} more` : ""
  return `running ${oldest.name}${more} ${elapsed(now - oldest.since)}`
}

/** Whether the status line shows something: the shell keeps redrawing it while it does. */
export const animated = (view: View, state: State): boolean =>
  view.tty && (state.retry !== undefined || state.waiting !== undefined || state.tools.length > 0)

const statusLine = (view: View, state: State, now: number): string | undefined => {
  if (!view.tty || state.cursor !== "line_start") return undefined
  const text = status(state, now)
  if (text === undefined) return undefined
  // One row at most: erasing the line would leave the rows of a wrapped status line behind.
  const line = `  ${frame(now)} ${text}`
  const fitted =
    view.terminal === undefined ? line : [...line].slice(0, Math.max(1, view.terminal.columns - 1)).join("")
  return `${eraseLine}${paint(view.color).dim(fitted)}`
}

/**
 * The redraw of the status line at `now`, between events: the spinner's next
 * frame and the elapsed time.
 */
export const tick = (view: View, state: State, now: number): Step => {
  const line = statusLine(view, state, now)
  return line === undefined ? { state, write: "" } : { state: { ...state, statusDrawn: true }, write: line }
}

/** Whether every character of `text` takes one column (so its rows on the screen can be counted). */
const narrow = (text: string): boolean => {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    if (char !== "\n" && !(code >= 0x20 && code < 0x7f) && !(code >= 0xa0 && code < 0x300)) return false
  }
  return true
}

/**
 * How many rows above the cursor the text written from the start of a line
 * reaches, on a terminal `columns` wide; `undefined` when it cannot be known
 * (a character of another width, or a tab).
 */
export const rowsAbove = (text: string, columns: number): number | undefined => {
  if (!narrow(text) || columns < 1) return undefined
  const lines = text.split("\n")
  return lines.reduce((rows, line, i) => {
    const spanned = Math.ceil(line.length / columns)
    // A finished line takes at least its own row; the cursor sits on the last row of the last one.
    return rows + (i < lines.length - 1 ? Math.max(1, spanned) : Math.max(0, spanned - 1))
  }, 0)
}

/** Marks the failed attempt's text discarded: rewritten struck through and dim where it can be reached, then the marker line. */
const discard = (view: View, state: State, event: KernelEvent.EventOf<"stream_restarted">): string => {
  const c = paint(view.color)
  const marker = `${c.yellow(`  ↺ ${restartMarker(event)}`)}\n`
  if (!view.stream || state.partial === "") return marker
  const above =
    state.reachable && view.tty && view.color && view.terminal
      ? rowsAbove(state.partial, view.terminal.columns)
      : undefined
  if (above !== undefined && view.terminal !== undefined && above < view.terminal.rows) {
    const struck = state.partial
      .split("\n")
      .map((line) => (line === "" ? "" : c.struck(line)))
      .join("\n")
    const close = state.partial.endsWith("\n") ? "" : "\n"
    return `${above > 0 ? `\x1b[${above}A` : ""}\r\x1b[J${struck}${close}${marker}`
  }
  return `${state.cursor === "line_start" ? "" : "\n"}${marker}`
}

const removeTool = (tools: ReadonlyArray<RunningTool>, id: string) => tools.filter((tool) => tool.id !== id)

/** The timeline's write for one event at `now`, and the state after it. */
export const step = (view: View, before: State, event: KernelEvent.KernelEvent, now: number): Step => {
  const c = paint(view.color)
  let write = before.statusDrawn ? eraseLine : ""
  let state: State = { ...before, statusDrawn: false }
  const closeLine = () => {
    if (state.cursor !== "line_start") write += "\n"
    state = { ...state, cursor: "line_start" }
  }
  const line = (text: string | undefined) => {
    if (text === undefined) return
    closeLine()
    write += `${text}\n`
  }
  switch (event.type) {
    case "text_delta": {
      state = { ...state, waiting: undefined }
      if (!view.stream) break
      const text = clean(event.text)
      if (state.cursor === "thinking") {
        write += "\n"
        state = { ...state, cursor: "line_start" }
      }
      write += text
      state = {
        ...state,
        partial: state.partial + text,
        cursor: text === "" ? state.cursor : text.endsWith("\n") ? "line_start" : "text"
      }
      break
    }
    case "thinking_delta": {
      if (view.stream && view.thinking) {
        const text = clean(event.text)
        if (state.cursor === "text") write += "\n"
        write += c.dim(text)
        // Thinking written after the attempt's text puts that text out of reach of a rewrite.
        state = {
          ...state,
          cursor: text.endsWith("\n") ? "line_start" : "thinking",
          reachable: state.reachable && state.partial === ""
        }
      } else if (state.waiting !== undefined) {
        state = { ...state, waiting: { ...state.waiting, activity: "thinking" } }
      }
      break
    }
    case "tool_use_started":
      closeLine()
      state = { ...state, waiting: { activity: `writing a call to ${clean(event.name)}`, since: now } }
      break
    case "model_request":
      line(describe(event, view.color))
      state = {
        ...state,
        retry: undefined,
        partial: "",
        reachable: true,
        waiting: { activity: `waiting for ${clean(event.model)}`, since: now }
      }
      break
    case "model_response":
      closeLine()
      line(describe(event, view.color))
      state = {
        ...state,
        waiting: undefined,
        answer: state.partial === "" ? state.answer : state.partial,
        partial: ""
      }
      break
    case "stream_restarted":
      if (view.stream) {
        write += discard(view, state, event)
        state = { ...state, cursor: "line_start" }
      } else line(describe(event, view.color))
      state = { ...state, waiting: undefined, partial: "", reachable: true }
      break
    case "retry_scheduled":
      line(describe(event, view.color))
      state = {
        ...state,
        waiting: undefined,
        retry: event.delay_ms > 0 ? { attempt: event.attempt, until: now + event.delay_ms } : undefined
      }
      break
    case "tool_call_started":
      line(describe(event, view.color))
      state = {
        ...state,
        tools: [...removeTool(state.tools, event.id), { id: event.id, name: clean(event.name), since: now }]
      }
      break
    case "tool_result":
      line(describe(event, view.color))
      state = { ...state, tools: removeTool(state.tools, event.id) }
      break
    case "run_started":
      // Each run of an interactive session has its own answer.
      line(describe(event, view.color))
      state = { ...state, answer: "" }
      break
    case "run_ended":
      closeLine()
      state = { ...state, waiting: undefined, retry: undefined, tools: [] }
      break
    default:
      line(describe(event, view.color))
  }
  const drawn = statusLine(view, state, now)
  return drawn === undefined ? { state, write } : { state: { ...state, statusDrawn: true }, write: write + drawn }
}
