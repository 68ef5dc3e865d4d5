/**
 * A run's timeline: where the time went and which decision the kernel took
 * when, read from the run's kernel events (`make`), and drawn as SVG
 * (`toSvg`). Both are pure.
 *
 * - each model attempt is a bar from its `model_request` to its outcome: the
 *   answer, or the error (category, HTTP status when the run's end names it,
 *   retry-after seen) and what came of it (retry, fallback, reduction,
 *   stream restart, quota refusal, the run's end);
 * - each wait before a retry is a bar marked by its source: the server's
 *   retry-after or the kernel's backoff;
 * - fallbacks, context reductions (estimated tokens before and after),
 *   content filters and stream restarts are markers at their time;
 * - tool calls are bars with their duration, errors marked, concurrent calls
 *   on rows of their own;
 * - plugin crashes are marked on the plugin's row, with its breaker's state
 *   (closed, open, half-open) drawn over time;
 * - the session retry budget left is a line over time.
 *
 * Every drawn item carries the sequence number of its event (`data-seq`), so
 * a page can show the event in full.
 *
 * @since 0.1.0
 */
import type { KernelEvent } from "@agent-kernel/kernel"
import type * as InspectorStore from "./InspectorStore.js"

/**
 * What became of a model attempt.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | {
      readonly _tag: "Answered"
      readonly stop_reason: string
      readonly input_tokens: number
      readonly output_tokens: number
    }
  | {
      readonly _tag: "Failed"
      readonly category: string
      readonly message: string
      /** The HTTP status, when an event names it (the run's end does). */
      readonly status: number | null
      readonly retry_after_ms: number | null
      /** What the kernel did next. */
      readonly next: "retry" | "fallback" | "reduction" | "restart" | "quota" | "pause" | "end"
    }
  | { readonly _tag: "Filtered"; readonly message: string }
  /** The run stopped during the attempt: interrupted, or its process stopped (a resume follows). */
  | { readonly _tag: "Cut"; readonly why: "interrupted" | "process stopped" }
  /** No outcome yet: the attempt is in flight. */
  | { readonly _tag: "Pending" }

/**
 * One model attempt.
 *
 * @since 0.1.0
 * @category models
 */
export interface Attempt {
  readonly kind: "attempt"
  /** The `model_request`'s sequence number. */
  readonly seq: number
  /** The sequence number of the event that gave the outcome, if any. */
  readonly outcome_seq: number | null
  readonly turn: number
  readonly model: string
  readonly attempt: number
  readonly start: number
  readonly end: number
  readonly outcome: Outcome
}

/**
 * A wait before a retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface Wait {
  readonly kind: "wait"
  /** The `retry_scheduled`'s sequence number. */
  readonly seq: number
  readonly source: "retry_after" | "backoff"
  readonly delay_ms: number
  readonly retry_after_ms: number | null
  /** The retry it waits for. */
  readonly attempt: number
  readonly start: number
  /** When the retry was sent (or the wait was cut); the planned end while it still waits. */
  readonly end: number
}

/**
 * A plugin crash a tool result reports.
 *
 * @since 0.1.0
 * @category models
 */
export interface Crash {
  readonly kind: "crash"
  /** The `tool_result`'s sequence number. */
  readonly seq: number
  readonly at: number
  readonly plugin: string
  /** How the process ended: `exit code 1`, `killed by signal SIGKILL`, ... */
  readonly status: string
  readonly tool: string
}

/**
 * A tool call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool {
  readonly kind: "tool"
  /** The `tool_call_started`'s sequence number (the `tool_result`'s for a call that never started). */
  readonly seq: number
  readonly result_seq: number | null
  readonly id: string
  readonly name: string
  readonly start: number
  readonly end: number
  /** `null` while the call runs. */
  readonly is_error: boolean | null
  readonly crash: Crash | null
  /** The row it is drawn on: concurrent calls take rows of their own. */
  readonly row: number
}

/**
 * A decision or notice at one point in time.
 *
 * @since 0.1.0
 * @category models
 */
export interface Marker {
  readonly kind: "marker"
  readonly seq: number
  readonly at: number
  readonly type: "fallback" | "reduction" | "filter" | "restart" | "quota" | "warning" | "paused" | "resumed" | "end"
  /** A short label. */
  readonly label: string
  /** One line more. */
  readonly detail: string
}

/**
 * A circuit breaker's change of state.
 *
 * @since 0.1.0
 * @category models
 */
export interface BreakerChange {
  readonly kind: "breaker"
  readonly seq: number
  readonly at: number
  readonly subject: string
  readonly from: "closed" | "open" | "half_open"
  readonly to: "closed" | "open" | "half_open"
  readonly reason: string
}

/**
 * A stretch of time a breaker spent in one state.
 *
 * @since 0.1.0
 * @category models
 */
export interface BreakerSpan {
  readonly subject: string
  readonly state: "closed" | "open" | "half_open"
  readonly start: number
  readonly end: number
}

/**
 * The session retry budget after an event that reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BudgetPoint {
  readonly seq: number
  readonly at: number
  readonly used: number
  readonly left: number
}

/**
 * A run's timeline.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeline {
  readonly run_id: string
  readonly start: number
  readonly end: number
  /** How the run ended; `null` while it has not. */
  readonly status: KernelEvent.RunStatus | null
  readonly attempts: ReadonlyArray<Attempt>
  readonly waits: ReadonlyArray<Wait>
  readonly tools: ReadonlyArray<Tool>
  readonly toolRows: number
  readonly markers: ReadonlyArray<Marker>
  readonly crashes: ReadonlyArray<Crash>
  readonly breakers: ReadonlyArray<BreakerChange>
  readonly breakerSpans: ReadonlyArray<BreakerSpan>
  /** The plugins the timeline has a row for: those with a crash or a breaker change, in order of appearance. */
  readonly plugins: ReadonlyArray<string>
  readonly budget: ReadonlyArray<BudgetPoint>
  readonly turns: ReadonlyArray<{ readonly turn: number; readonly at: number; readonly seq: number }>
}

const crashPattern =
  /^Plugin "([^"]+)" (?:crashed while handling the call|exited during startup) \(process_crashed: ([^,)]+)/

/**
 * The plugin crash a tool result's text reports, if it does (the plugins'
 * `PluginCrashed` message: `Plugin "NAME" crashed while handling the call
 * (process_crashed: STATUS, pid N)`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const crashOf = (preview: string): { readonly plugin: string; readonly status: string } | undefined => {
  const match = crashPattern.exec(preview)
  return match === null ? undefined : { plugin: match[1] ?? "", status: match[2] ?? "" }
}

interface OpenAttempt {
  readonly seq: number
  readonly turn: number
  readonly model: string
  readonly attempt: number
  readonly start: number
}

/** The timeline under construction: what is open, and what is done. */
class Builder {
  start: number | undefined
  status: KernelEvent.RunStatus | null = null
  last = 0
  open: OpenAttempt | undefined
  openWait: Omit<Wait, "end"> | undefined
  readonly openTools = new Map<string, { readonly seq: number; readonly name: string; readonly start: number }>()
  readonly attempts: Array<Attempt> = []
  readonly waits: Array<Wait> = []
  readonly tools: Array<Omit<Tool, "row">> = []
  readonly markers: Array<Marker> = []
  readonly crashes: Array<Crash> = []
  readonly breakers: Array<BreakerChange> = []
  readonly budget: Array<BudgetPoint> = []
  readonly turns: Array<{ readonly turn: number; readonly at: number; readonly seq: number }> = []
  runId = ""

  closeAttempt(at: number, seq: number | null, outcome: Outcome) {
    const open = this.open
    if (open === undefined) return
    this.attempts.push({ kind: "attempt", ...open, outcome_seq: seq, end: Math.max(at, open.start), outcome })
    this.open = undefined
  }

  failAttempt(
    at: number,
    seq: number,
    fields: { readonly category: string; readonly message: string; readonly retry_after_ms?: number | null },
    next: Extract<Outcome, { _tag: "Failed" }>["next"]
  ) {
    this.closeAttempt(at, seq, {
      _tag: "Failed",
      category: fields.category,
      message: fields.message,
      status: null,
      retry_after_ms: fields.retry_after_ms ?? null,
      next
    })
  }

  closeWait(at: number) {
    const wait = this.openWait
    if (wait === undefined) return
    this.waits.push({ ...wait, end: Math.max(wait.start, at) })
    this.openWait = undefined
  }

  closeTools(at: number) {
    for (const [id, call] of this.openTools) {
      this.tools.push({
        kind: "tool",
        seq: call.seq,
        result_seq: null,
        id,
        name: call.name,
        start: call.start,
        end: Math.max(at, call.start),
        is_error: true,
        crash: null
      })
    }
    this.openTools.clear()
  }

  marker(seq: number, at: number, type: Marker["type"], label: string, detail: string) {
    this.markers.push({ kind: "marker", seq, at, type, label, detail })
  }

  add(seq: number, event: KernelEvent.KernelEvent) {
    this.last = Math.max(this.last, event.at)
    switch (event.type) {
      case "run_started":
        if (this.start === undefined) {
          this.start = event.at
          this.runId = event.run_id
        } else {
          // The same run again: its process stopped, and a resume goes on with it.
          this.closeAttempt(event.at, null, { _tag: "Cut", why: "process stopped" })
          this.closeWait(event.at)
          this.closeTools(event.at)
          this.marker(seq, event.at, "resumed", "resumed", "the run was resumed after its process stopped")
        }
        return
      case "turn_started":
        this.turns.push({ turn: event.turn, at: event.at, seq })
        return
      case "model_request":
        this.closeAttempt(event.at, null, { _tag: "Cut", why: "process stopped" })
        this.closeWait(event.at)
        this.open = { seq, turn: event.turn, model: event.model, attempt: event.attempt, start: event.at }
        return
      case "model_response":
        this.closeAttempt(event.at, seq, {
          _tag: "Answered",
          stop_reason: event.stop_reason,
          input_tokens: event.usage.input_tokens,
          output_tokens: event.usage.output_tokens
        })
        return
      case "retry_scheduled":
        this.failAttempt(event.at, seq, event, "retry")
        this.openWait = {
          kind: "wait",
          seq,
          source: event.source,
          delay_ms: event.delay_ms,
          retry_after_ms: event.retry_after_ms,
          attempt: event.attempt,
          start: event.at
        }
        this.budget.push({ seq, at: event.at, used: event.session_retries_used, left: event.session_retries_left })
        return
      case "retry_quota_exhausted":
        this.failAttempt(event.at, seq, event, "quota")
        this.marker(
          seq,
          event.at,
          "quota",
          "quota",
          `the provider-wide retry quota refused a retry (${event.category})`
        )
        return
      case "stream_restarted":
        this.failAttempt(event.at, seq, { category: event.category, message: "the stream failed mid-way" }, "restart")
        this.marker(
          seq,
          event.at,
          "restart",
          "restart",
          `stream restarted after ${event.category}: ${event.discarded_text_chars} characters discarded`
        )
        return
      case "fallback":
        this.failAttempt(event.at, seq, { category: event.category, message: `fell back to ${event.to}` }, "fallback")
        this.marker(
          seq,
          event.at,
          "fallback",
          `→ ${event.to}`,
          `fallback ${event.from} → ${event.to} after ${event.category}`
        )
        this.budget.push({ seq, at: event.at, used: event.session_retries_used, left: event.session_retries_left })
        return
      case "context_reduced":
        this.failAttempt(
          event.at,
          seq,
          { category: "context_overflow", message: "the context overflowed" },
          "reduction"
        )
        this.marker(
          seq,
          event.at,
          "reduction",
          `${event.before} → ${event.after}`,
          `context reduced: ~${event.before} → ~${event.after} estimated tokens${
            event.target === null ? "" : ` (target ${event.target})`
          }, reduction ${event.reductions}`
        )
        return
      case "content_filtered":
        this.filtered(seq, event)
        this.marker(seq, event.at, "filter", "filtered", `content filtered: ${event.message}`)
        return
      case "tool_call_started":
        this.openTools.set(event.id, { seq, name: event.name, start: event.at })
        return
      case "tool_result":
        this.toolResult(seq, event)
        return
      case "breaker_changed":
        this.breakers.push({ kind: "breaker", seq, ...event })
        return
      case "warning":
        this.marker(seq, event.at, "warning", "warning", event.message)
        return
      case "run_paused":
        this.failAttempt(event.at, seq, { ...event.error, retry_after_ms: event.error.retry_after_ms ?? null }, "pause")
        this.marker(
          seq,
          event.at,
          "paused",
          `paused: ${event.reason}`,
          `paused instead of ending ${event.reason} (${event.error.category}: ${event.error.message})${
            event.resume_at === null ? "" : `; resumes at ${new Date(event.resume_at).toISOString()}`
          }`
        )
        return
      case "run_resumed":
        this.marker(
          seq,
          event.at,
          "resumed",
          "resumed",
          `the run was resumed after ${formatMs(event.paused_ms)} paused${event.reset_budget ? ", its retry budget reset" : ""}`
        )
        return
      case "run_ended":
        this.runEnded(seq, event)
        return
      case "text_delta":
      case "thinking_delta":
      case "tool_use_started":
      case "turn_ended":
        return
    }
  }

  /** The filter's answer: the attempt its `model_response` closed (or the open one) was filtered. */
  filtered(seq: number, event: KernelEvent.EventOf<"content_filtered">) {
    const outcome: Outcome = { _tag: "Filtered", message: event.message }
    const last = this.attempts.at(-1)
    if (this.open === undefined && last !== undefined && last.outcome._tag === "Answered") {
      this.attempts[this.attempts.length - 1] = { ...last, outcome_seq: seq, outcome }
    } else this.closeAttempt(event.at, seq, outcome)
  }

  toolResult(seq: number, event: KernelEvent.EventOf<"tool_result">) {
    const started = this.openTools.get(event.id)
    this.openTools.delete(event.id)
    const found = event.is_error ? crashOf(event.preview) : undefined
    const crash: Crash | null =
      found === undefined ? null : { kind: "crash", seq, at: event.at, tool: event.name, ...found }
    if (crash !== null) this.crashes.push(crash)
    this.tools.push({
      kind: "tool",
      seq: started?.seq ?? seq,
      result_seq: seq,
      id: event.id,
      name: event.name,
      start: started?.start ?? event.at - event.duration_ms,
      end: event.at,
      is_error: event.is_error,
      crash
    })
  }

  runEnded(seq: number, event: KernelEvent.EventOf<"run_ended">) {
    const error = event.error
    if (event.status === "interrupted") this.closeAttempt(event.at, seq, { _tag: "Cut", why: "interrupted" })
    else if (error !== null)
      this.closeAttempt(event.at, seq, {
        _tag: "Failed",
        category: error.category,
        message: error.message,
        status: error.status ?? null,
        retry_after_ms: error.retry_after_ms ?? null,
        next: "end"
      })
    else this.closeAttempt(event.at, seq, { _tag: "Cut", why: "interrupted" })
    this.closeWait(event.at)
    this.closeTools(event.at)
    this.status = event.status
    this.marker(seq, event.at, "end", event.status, `run ended: ${event.status}`)
  }
}

/** Rows for bars so that bars on one row never overlap. */
const rowsFor = <A extends { readonly start: number; readonly end: number }>(
  items: ReadonlyArray<A>
): { readonly rows: ReadonlyArray<number>; readonly count: number } => {
  const ends: Array<number> = []
  const order = items.map((item, i) => ({ item, i })).sort((a, b) => a.item.start - b.item.start || a.i - b.i)
  const rows: Array<number> = new Array(items.length).fill(0)
  for (const { item, i } of order) {
    let row = ends.findIndex((end) => end <= item.start)
    if (row < 0) {
      row = ends.length
      ends.push(item.end)
    } else ends[row] = item.end
    rows[i] = row
  }
  return { rows, count: Math.max(1, ends.length) }
}

const spansOf = (
  breakers: ReadonlyArray<BreakerChange>,
  plugins: ReadonlyArray<string>,
  start: number,
  end: number
): Array<BreakerSpan> =>
  plugins.flatMap((subject) => {
    const changes = breakers.filter((change) => change.subject === subject)
    const spans: Array<BreakerSpan> = []
    let state: BreakerSpan["state"] = changes[0]?.from ?? "closed"
    let since = start
    for (const change of changes) {
      spans.push({ subject, state, start: since, end: change.at })
      state = change.to
      since = change.at
    }
    spans.push({ subject, state, start: since, end: Math.max(since, end) })
    return spans
  })

/**
 * The timeline of a run from its events, in sequence order. A run that has
 * not ended reaches to `now` when given (a live run), else to its last event.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  events: Iterable<InspectorStore.LoggedEvent>,
  options: { readonly now?: number | undefined } = {}
): Timeline => {
  const builder = new Builder()
  for (const { seq, event } of events) builder.add(seq, event)
  const start = builder.start ?? 0
  const running = builder.status === null
  const end = Math.max(start, builder.last, running && options.now !== undefined ? options.now : builder.last)
  if (builder.open !== undefined) {
    const open = builder.open
    builder.attempts.push({ kind: "attempt", ...open, outcome_seq: null, end, outcome: { _tag: "Pending" } })
  }
  const waits =
    builder.openWait === undefined
      ? builder.waits
      : [...builder.waits, { ...builder.openWait, end: builder.openWait.start + builder.openWait.delay_ms }]
  const pendingTools = [...builder.openTools].map(
    ([id, call]): Omit<Tool, "row"> => ({
      kind: "tool",
      seq: call.seq,
      result_seq: null,
      id,
      name: call.name,
      start: call.start,
      end,
      is_error: null,
      crash: null
    })
  )
  const allTools = [...builder.tools, ...pendingTools].sort((a, b) => a.start - b.start || a.seq - b.seq)
  const { rows, count } = rowsFor(allTools)
  const plugins = [...new Set([...builder.crashes.map((c) => c.plugin), ...builder.breakers.map((b) => b.subject)])]
  return {
    run_id: builder.runId,
    start,
    end: Math.max(end, ...waits.map((wait) => wait.end)),
    status: builder.status,
    attempts: builder.attempts.sort((a, b) => a.seq - b.seq),
    waits,
    tools: allTools.map((tool, i) => ({ ...tool, row: rows[i] ?? 0 })),
    toolRows: count,
    markers: builder.markers,
    crashes: builder.crashes,
    breakers: builder.breakers,
    breakerSpans: spansOf(builder.breakers, plugins, start, end),
    plugins,
    budget: builder.budget,
    turns: builder.turns
  }
}

/**
 * A duration as people read it: `340 ms`, `1.2 s`, `12 s`, `2 min 5 s`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatMs = (ms: number): string =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`
    : ms >= 1_000
      ? `${(ms / 1_000).toFixed(ms >= 10_000 ? 0 : 1)} s`
      : `${Math.round(ms)} ms`

/**
 * A one-line description of an attempt's outcome.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeOutcome = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Answered":
      return `${outcome.stop_reason} (${outcome.input_tokens} in / ${outcome.output_tokens} out tokens)`
    case "Failed":
      return [
        outcome.category,
        outcome.status === null ? undefined : `HTTP ${outcome.status}`,
        outcome.retry_after_ms === null ? undefined : `retry-after ${formatMs(outcome.retry_after_ms)}`,
        `→ ${outcome.next}`
      ]
        .filter((part) => part !== undefined)
        .join(", ")
    case "Filtered":
      return `content filtered: ${outcome.message}`
    case "Cut":
      return outcome.why
    case "Pending":
      return "in flight"
  }
}

const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** Tick spacing of 1, 2 or 5 times a power of ten giving about `count` ticks. */
const tickStep = (span: number, count: number): number => {
  const raw = Math.max(1, span / count)
  const power = 10 ** Math.floor(Math.log10(raw))
  const unit = raw / power
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power
}

/**
 * How a timeline is drawn.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvgOptions {
  /** The drawing's width in pixels; default: wide enough for the run's attempts and tools. */
  readonly width?: number | undefined
}

interface Layout {
  readonly x: (at: number) => number
  readonly width: number
  readonly left: number
  readonly right: number
}

const lane = { axis: 26, model: 34, markerRow: 18, toolRow: 18, pluginRow: 18, budget: 64, gap: 10 }

const fmt = (n: number) => (Math.round(n * 10) / 10).toString()

/**
 * An item: a group with its kind, sequence number and times, a shape, and a
 * one-line description as its accessible name (the page shows it, with the
 * event, on hover; an attribute rather than a `<title>` element keeps a long
 * run's drawing to half the elements).
 */
const item = (
  kind: string,
  classes: string,
  seq: number,
  start: number,
  end: number,
  shape: string,
  title: string
): string =>
  `<g class="ti ${kind} ${classes}" data-kind="${kind}" data-seq="${seq}" data-start="${start}" data-end="${end}" tabindex="0" aria-label="${escapeXml(title)}">${shape}</g>`

const bar = (layout: Layout, start: number, end: number, y: number, height: number): string => {
  const x = layout.x(start)
  const w = Math.max(2, layout.x(end) - x)
  return `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(w)}" height="${height}" rx="2"/>`
}

const labelIn = (layout: Layout, start: number, end: number, y: number, text: string): string => {
  const w = layout.x(end) - layout.x(start)
  const fits = Math.floor((w - 6) / 6.2)
  if (fits < 4) return ""
  const shown = text.length > fits ? `${text.slice(0, fits - 1)}…` : text
  return `<text x="${fmt(layout.x(start) + 3)}" y="${fmt(y)}" class="bl">${escapeXml(shown)}</text>`
}

const diamond = (x: number, y: number, r: number) =>
  `<path d="M${fmt(x)} ${fmt(y - r)}L${fmt(x + r)} ${fmt(y)}L${fmt(x)} ${fmt(y + r)}L${fmt(x - r)} ${fmt(y)}Z"/>`

const attemptClass = (outcome: Outcome): string =>
  outcome._tag === "Answered"
    ? "ok"
    : outcome._tag === "Failed"
      ? `failed next-${outcome.next}`
      : outcome._tag === "Filtered"
        ? "filtered"
        : outcome._tag === "Cut"
          ? "cut"
          : "pending"

const attemptLabel = (attempt: Attempt): string =>
  attempt.outcome._tag === "Failed"
    ? `${attempt.outcome.category}${attempt.outcome.status === null ? "" : ` ${attempt.outcome.status}`}`
    : `${attempt.model} #${attempt.attempt}`

const drawAxis = (t: Timeline, layout: Layout, y: number): string => {
  const span = t.end - t.start
  const step = tickStep(span, Math.max(2, Math.floor((layout.right - layout.left) / 110)))
  const ticks: Array<string> = []
  for (let at = 0; at <= span + 1e-9; at += step) {
    const x = fmt(layout.x(t.start + at))
    ticks.push(
      `<line x1="${x}" x2="${x}" y1="${y + 16}" y2="${y + 22}" class="tick"/><text x="${x}" y="${y + 12}" class="tl">${escapeXml(formatMs(at))}</text>`
    )
  }
  return `<g class="axis">${ticks.join("")}</g>`
}

/** Turn boundaries, as faint lines: only while there are few enough to tell apart. */
const drawTurns = (t: Timeline, layout: Layout, top: number, bottom: number): string =>
  (t.turns.length > 200 ? [] : t.turns)
    .map((turn) => {
      const x = fmt(layout.x(turn.at))
      return `<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" class="turn" data-turn="${turn.turn}"/>`
    })
    .join("")

const drawModelLane = (t: Timeline, layout: Layout, y: number): string => {
  const h = lane.model - 12
  const attempts = t.attempts.map((a) =>
    item(
      "attempt",
      attemptClass(a.outcome),
      a.seq,
      a.start,
      a.end,
      bar(layout, a.start, a.end, y, h) + labelIn(layout, a.start, a.end, y + h / 2 + 4, attemptLabel(a)),
      `turn ${a.turn}, attempt ${a.attempt} on ${a.model}: ${formatMs(a.end - a.start)}, ${describeOutcome(a.outcome)}`
    )
  )
  const waits = t.waits.map((w) =>
    item(
      "wait",
      w.source === "retry_after" ? "retry-after" : "backoff",
      w.seq,
      w.start,
      w.end,
      bar(layout, w.start, w.end, y + 4, h - 8) +
        labelIn(layout, w.start, w.end, y + h / 2 + 4, w.source === "retry_after" ? "retry-after" : "backoff"),
      `wait ${formatMs(w.delay_ms)} before attempt ${w.attempt}: ${
        w.source === "retry_after"
          ? `the server's retry-after (${formatMs(w.retry_after_ms ?? w.delay_ms)})`
          : `our backoff${w.retry_after_ms === null ? "" : ` (retry-after ${formatMs(w.retry_after_ms)} was shorter)`}`
      }`
    )
  )
  return attempts.join("") + waits.join("")
}

/** Rows for the markers' labels, so that no label runs over the next marker on its row. */
const markerRows = (t: Timeline, layout: Layout): { readonly rows: ReadonlyArray<number>; readonly count: number } =>
  rowsFor(
    t.markers.map((m) => {
      const x = layout.x(m.at)
      const width = 12 + m.label.length * 6
      return x + width > layout.width ? { start: x - width, end: x + 7 } : { start: x - 7, end: x + width }
    })
  )

const drawMarkers = (t: Timeline, layout: Layout, y: number, rows: ReadonlyArray<number>): string =>
  t.markers
    .map((m, i) => {
      const x = layout.x(m.at)
      const top = y + (rows[i] ?? 0) * lane.markerRow
      // A label that would run past the drawing's edge is written to the marker's left.
      const leftward = x + 12 + m.label.length * 6 > layout.width
      const label = `<text x="${fmt(leftward ? x - 8 : x + 8)}" y="${fmt(top + 13)}" class="ml"${leftward ? ' text-anchor="end"' : ""}>${escapeXml(m.label)}</text>`
      const shape = `${diamond(x, top + 9, 6)}${label}`
      return item("marker", m.type, m.seq, m.at, m.at, shape, m.detail)
    })
    .join("")

const drawTools = (t: Timeline, layout: Layout, y: number): string =>
  t.tools
    .map((tool) => {
      const top = y + tool.row * lane.toolRow
      const classes =
        tool.is_error === null ? "pending" : tool.crash !== null ? "crashed" : tool.is_error ? "error" : "ok"
      return item(
        "tool",
        classes,
        tool.seq,
        tool.start,
        tool.end,
        bar(layout, tool.start, tool.end, top, lane.toolRow - 4) +
          labelIn(layout, tool.start, tool.end, top + lane.toolRow / 2 + 2, tool.name),
        `${tool.name} (${tool.id}): ${formatMs(tool.end - tool.start)}, ${
          tool.is_error === null
            ? "running"
            : tool.crash !== null
              ? `plugin crashed (${tool.crash.status})`
              : tool.is_error
                ? "error result"
                : "ok"
        }`
      )
    })
    .join("")

const drawPlugins = (t: Timeline, layout: Layout, y: number): string =>
  t.plugins
    .map((plugin, row) => {
      const top = y + row * lane.pluginRow
      const spans = t.breakerSpans
        .filter((span) => span.subject === plugin)
        .map(
          (span) =>
            `<g class="breaker-span ${span.state}" data-state="${span.state}" data-start="${span.start}" data-end="${span.end}">${bar(layout, span.start, span.end, top + 5, 6)}<title>${escapeXml(`breaker of ${plugin}: ${span.state.replace("_", "-")} for ${formatMs(span.end - span.start)}`)}</title></g>`
        )
      const changes = t.breakers
        .filter((change) => change.subject === plugin)
        .map((change) =>
          item(
            "breaker",
            change.to,
            change.seq,
            change.at,
            change.at,
            diamond(layout.x(change.at), top + 8, 6),
            `breaker of ${plugin}: ${change.from} → ${change.to} (${change.reason})`
          )
        )
      const crashes = t.crashes
        .filter((crash) => crash.plugin === plugin)
        .map((crash) => {
          const x = layout.x(crash.at)
          return item(
            "crash",
            "crash",
            crash.seq,
            crash.at,
            crash.at,
            `<path d="M${fmt(x - 5)} ${fmt(top + 3)}L${fmt(x + 5)} ${fmt(top + 13)}M${fmt(x + 5)} ${fmt(top + 3)}L${fmt(x - 5)} ${fmt(top + 13)}"/>`,
            `plugin ${plugin} crashed during ${crash.tool} (${crash.status})`
          )
        })
      const label = `<text x="${layout.left - 8}" y="${top + 12}" class="ll sub">${escapeXml(plugin)}</text>`
      return label + spans.join("") + changes.join("") + crashes.join("")
    })
    .join("")

const drawBudget = (t: Timeline, layout: Layout, y: number): string => {
  if (t.budget.length === 0) return `<text x="${layout.left}" y="${y + 20}" class="note">no retry in this run</text>`
  const most = Math.max(1, ...t.budget.map((point) => point.left + 1))
  const yOf = (left: number) => y + 6 + (1 - left / most) * (lane.budget - 16)
  const first = t.budget[0]!
  let path = `M${fmt(layout.x(first.at))} ${fmt(yOf(first.left))}`
  for (const point of t.budget.slice(1)) path += `H${fmt(layout.x(point.at))}V${fmt(yOf(point.left))}`
  path += `H${fmt(layout.x(t.end))}`
  const points = t.budget.map((point) =>
    item(
      "budget",
      "point",
      point.seq,
      point.at,
      point.at,
      `<circle cx="${fmt(layout.x(point.at))}" cy="${fmt(yOf(point.left))}" r="3.5"/><text x="${fmt(layout.x(point.at) + 5)}" y="${fmt(yOf(point.left) - 4)}" class="ml">${point.left}</text>`,
      `session retry budget: ${point.used} used, ${point.left} left`
    )
  )
  return `<path d="${path}" class="budget-line"/>${points.join("")}`
}

/**
 * The timeline as an SVG element, styled by the page's stylesheet
 * (`class` names), every item with its event's `data-seq`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const toSvg = (t: Timeline, options: SvgOptions = {}): string => {
  const count = t.attempts.length + t.tools.length + t.markers.length
  const width = options.width ?? Math.min(24_000, Math.max(1_100, count * 6))
  const left = 112
  const right = width - 24
  const span = Math.max(1, t.end - t.start)
  const layout: Layout = { x: (at) => left + ((at - t.start) / span) * (right - left), width, left, right }
  const yAxis = 4
  const yModel = yAxis + lane.axis
  const yDecisions = yModel + lane.model
  const markers = markerRows(t, layout)
  const yTools = yDecisions + markers.count * lane.markerRow + lane.gap
  const yPlugins = yTools + t.toolRows * lane.toolRow + lane.gap
  const yBudget = yPlugins + Math.max(1, t.plugins.length) * lane.pluginRow + lane.gap
  const height = yBudget + lane.budget
  const laneLabel = (y: number, text: string) => `<text x="${left - 8}" y="${y}" class="ll">${text}</text>`
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" data-start="${t.start}" data-end="${t.end}" data-left="${left}" data-right="${right}" role="img" aria-label="${escapeXml(`timeline of ${t.run_id}`)}">`,
    drawAxis(t, layout, yAxis),
    drawTurns(t, layout, yModel - 2, height),
    laneLabel(yModel + 15, "model"),
    laneLabel(yDecisions + 13, "decisions"),
    laneLabel(yTools + 12, "tools"),
    t.plugins.length === 0 ? laneLabel(yPlugins + 12, "plugins") : "",
    laneLabel(yBudget + 20, "retry budget"),
    `<g class="lane model">${drawModelLane(t, layout, yModel)}</g>`,
    `<g class="lane decisions">${drawMarkers(t, layout, yDecisions, markers.rows)}</g>`,
    `<g class="lane tools">${drawTools(t, layout, yTools)}</g>`,
    `<g class="lane plugins">${drawPlugins(t, layout, yPlugins)}</g>`,
    `<g class="lane budget">${drawBudget(t, layout, yBudget)}</g>`,
    "</svg>"
  ].join("")
}
