/**
 * The human timeline: the pure decisions (state + event + now → what to
 * write) and the shell that redraws the status line, on TestClock.
 */
import { KernelEvent, type RunOutcome } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import * as Render from "./render.js"
import * as Timeline from "./timeline.js"

type Unstamped = KernelEvent.Unstamped
const stamp = (event: Unstamped): KernelEvent.KernelEvent => KernelEvent.stamp(event, 0)

const request = (attempt = 1): Unstamped => ({
  type: "model_request",
  turn: 1,
  model: "m",
  attempt,
  messages: 1,
  estimated_tokens: 10,
  tools: 0
})
const delta = (text: string, attempt = 1): Unstamped => ({ type: "text_delta", turn: 1, model: "m", attempt, text })
const thinking = (text: string): Unstamped => ({ type: "thinking_delta", turn: 1, model: "m", attempt: 1, text })
const response: Unstamped = {
  type: "model_response",
  turn: 1,
  model: "m",
  stop_reason: "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 },
  duration_ms: 5
}
const restarted = (discarded: number): Unstamped => ({
  type: "stream_restarted",
  turn: 1,
  model: "m",
  attempt: 1,
  category: "overloaded",
  discarded_text_chars: discarded
})
const toolStarted = (id: string, name: string): Unstamped => ({ type: "tool_call_started", turn: 1, id, name })
const toolResult = (id: string, name: string): Unstamped => ({
  type: "tool_result",
  turn: 1,
  id,
  name,
  is_error: false,
  duration_ms: 3,
  preview: "ok"
})

const tty: Timeline.View = { tty: true, color: false, stream: true, thinking: false }
const pipe: Timeline.View = { tty: false, color: false, stream: false, thinking: false }

/** Plays events at the given times; returns every write, and the last state. */
const play = (view: Timeline.View, steps: ReadonlyArray<readonly [Unstamped | "tick", number]>) => {
  let state = Timeline.initial
  const writes: Array<string> = []
  for (const [event, now] of steps) {
    const next = event === "tick" ? Timeline.tick(view, state, now) : Timeline.step(view, state, stamp(event), now)
    state = next.state
    writes.push(next.write)
  }
  return { writes, state, all: writes.join("") }
}

describe("timeline: the spinner", () => {
  it("a model call's wait shows a spinner with the elapsed time, one frame every 100 ms", () => {
    const { writes } = play(tty, [
      [request(), 10_000],
      ["tick", 10_100],
      ["tick", 11_550]
    ])
    assert.strictEqual(writes[0], "  → request m: 1 messages, ~10 tokens, 0 tools\n\r\x1b[K  ⠋ waiting for m 0.0 s")
    assert.strictEqual(writes[1], "\r\x1b[K  ⠙ waiting for m 0.1 s")
    assert.strictEqual(writes[2], "\r\x1b[K  ⠴ waiting for m 1.6 s")
  })

  it("the status line is cut to the terminal's width, so erasing its one row erases all of it", () => {
    const { writes } = play({ ...tty, terminal: { columns: 20, rows: 24 } }, [[request(), 0]])
    assert.strictEqual(writes[0]!.split("\n")[1], "\r\x1b[K  ⠋ waiting for m 0")
  })

  it("the status line is erased before the first token and not drawn while text streams", () => {
    const { writes } = play(tty, [
      [request(), 0],
      [delta("Hel"), 1_200],
      ["tick", 1_300],
      [delta("lo"), 1_400]
    ])
    assert.strictEqual(writes[1], "\r\x1b[KHel")
    assert.strictEqual(writes[2], "")
    assert.strictEqual(writes[3], "lo")
  })

  it("hidden thinking keeps the spinner, saying so; --thinking prints it dimmed and the answer on its own line", () => {
    const hidden = play(tty, [
      [request(), 0],
      [thinking("let me see"), 300],
      ["tick", 2_000]
    ])
    assert.strictEqual(hidden.writes[2], "\r\x1b[K  ⠋ thinking 2.0 s")
    assert.notInclude(hidden.all, "let me see")
    const shown = play({ ...tty, color: true, thinking: true }, [
      [request(), 0],
      [thinking("let me see"), 300],
      [delta("Answer"), 400]
    ])
    assert.include(shown.writes[1]!, "\x1b[2mlet me see\x1b[0m")
    assert.strictEqual(shown.writes[2], "\nAnswer")
  })

  it("a running tool shows its name and elapsed time; two at once show the older and a count", () => {
    const { writes, state } = play(tty, [
      [toolStarted("a", "list_files"), 0],
      [toolStarted("b", "read_file"), 500],
      ["tick", 2_300],
      [toolResult("a", "list_files"), 2_400],
      ["tick", 3_000],
      [toolResult("b", "read_file"), 3_100]
    ])
    assert.strictEqual(writes[2], "\r\x1b[K  ⠸ running list_files and 1 more 2.3 s")
    assert.strictEqual(writes[4], "\r\x1b[K  ⠋ running read_file 2.5 s")
    assert.strictEqual(writes[5], "\r\x1b[K  ✓ read_file in 3 ms: ok\n")
    assert.isFalse(Timeline.animated(tty, state))
  })

  it("the retry countdown counts down to the next attempt", () => {
    const retry: Unstamped = {
      type: "retry_scheduled",
      turn: 1,
      model: "m",
      category: "rate_limited",
      message: "slow down",
      attempt: 1,
      session_retries_used: 1,
      session_retries_left: 2,
      delay_ms: 2_000,
      retry_after_ms: null,
      source: "backoff"
    }
    const { writes } = play(tty, [
      [retry, 1_000],
      ["tick", 1_500],
      [request(2), 3_000]
    ])
    assert.strictEqual(writes[1], "\r\x1b[K  ⠴ retry 1 in 1.5 s")
    assert.strictEqual(
      writes[2],
      "\r\x1b[K  → request m (attempt 2): 1 messages, ~10 tokens, 0 tools\n\r\x1b[K  ⠋ waiting for m 0.0 s"
    )
  })

  it("off a terminal: no status line and no escape codes; deltas only when asked (--stream)", () => {
    const events: ReadonlyArray<readonly [Unstamped | "tick", number]> = [
      [request(), 0],
      ["tick", 500],
      [delta("Hello"), 600],
      [response, 700]
    ]
    const quiet = play(pipe, events)
    assert.notInclude(quiet.all, "\x1b")
    assert.notInclude(quiet.all, "Hello")
    const streamed = play({ ...pipe, stream: true }, events)
    assert.notInclude(streamed.all, "\x1b")
    assert.include(streamed.all, "tools\nHello\n  ← end_turn")
    assert.strictEqual(streamed.state.answer, "Hello")
  })
})

describe("timeline: streamed text", () => {
  it("on a terminal, control characters in model text are not written", () => {
    const { all, state } = play(tty, [[delta("a\x1b[2Jb\x07c\td\ne"), 0]])
    assert.strictEqual(all, "a[2Jbc\td\ne")
    assert.strictEqual(state.partial, "a[2Jbc\td\ne")
  })

  it("text from a model, a tool or a server is cleaned the same way in every line and the summary, on a terminal or not", () => {
    const hostile = "x\x1b]0;title\x07\x1b[2J\x1b[H\u202Ey\u2066z\u200F"
    // What the hostile text holds; the timeline's own codes (erasing the status line) may stay.
    const unsafe = ["\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\u200f", "\u202e", "\u2066"]
    const events: ReadonlyArray<readonly [Unstamped, number]> = [
      [{ type: "run_started", run_id: "r", model: hostile, input: "hi" }, 0],
      [request(), 1],
      [delta(hostile), 2],
      [thinking(hostile), 3],
      [{ type: "tool_use_started", turn: 1, id: "a", name: hostile }, 4],
      [toolStarted("a", hostile), 5],
      [{ type: "tool_result", turn: 1, id: "a", name: hostile, is_error: true, duration_ms: 3, preview: hostile }, 6],
      [{ type: "warning", message: hostile }, 7],
      [{ type: "content_filtered", turn: 1, model: "m", message: hostile, partial_text: hostile }, 8],
      [{ type: "breaker_changed", subject: hostile, from: "closed", to: "open", reason: hostile }, 9],
      [response, 10]
    ]
    for (const view of [
      { ...tty, thinking: true },
      { ...pipe, stream: true }
    ]) {
      const { all } = play(view, events)
      for (const sequence of unsafe) assert.notInclude(all, sequence)
      assert.include(all, "x]0;title[2J[Hyz")
    }
    const outcome: Render.Ended = {
      status: "failed",
      error: { category: "unknown", message: hostile },
      turns: 1,
      retries: { max_per_call: 0, session_total: 0 },
      usage: { input_tokens: 1, output_tokens: 1 },
      cost_usd: null,
      wall_ms: 1,
      final_text: hostile
    }
    const summary = Render.summary(outcome, false)
    for (const sequence of unsafe) assert.notInclude(summary, sequence)
    assert.isTrue(summary.startsWith("\nx]0;title[2J[Hyz\n\nstatus"), summary)
    // An answer that streamed, cleaned, is not printed again.
    assert.isTrue(Render.summary(outcome, false, Timeline.clean(hostile)).startsWith("\nstatus"))
  })

  it("the answer is the text of the last response that had text", () => {
    const { state } = play(tty, [
      [delta("I'll use the tool."), 0],
      [response, 1],
      [toolStarted("a", "t"), 2],
      [toolResult("a", "t"), 3],
      [delta("Done."), 4],
      [response, 5],
      [delta(""), 6],
      [response, 7]
    ])
    assert.strictEqual(state.answer, "Done.")
    const next = Timeline.step(tty, state, stamp({ type: "run_started", run_id: "r2", model: "m", input: "again" }), 8)
    assert.strictEqual(next.state.answer, "")
  })

  it("the summary leaves out an answer already streamed, and prints one that was not", () => {
    const outcome: RunOutcome.RunOutcome = {
      run_id: "r",
      status: "completed",
      turns: 1,
      retries: { max_per_call: 0, session_total: 0 },
      usage: { input_tokens: 1, output_tokens: 1 },
      cost_usd: null,
      wall_ms: 1,
      context_reductions: 0,
      final_text: "The answer.",
      history: []
    }
    assert.notInclude(Render.summary(outcome, false, "The answer."), "The answer.")
    assert.include(Render.summary(outcome, false, "Something else"), "The answer.")
    assert.include(Render.summary(outcome, false), "The answer.")
  })
})

describe("timeline: a restarted stream", () => {
  it("rowsAbove counts the rows the text reaches above the cursor", () => {
    assert.strictEqual(Timeline.rowsAbove("abc", 80), 0)
    assert.strictEqual(Timeline.rowsAbove("abc\nde", 80), 1)
    assert.strictEqual(Timeline.rowsAbove("abc\n", 80), 1)
    assert.strictEqual(Timeline.rowsAbove("x".repeat(80), 80), 0)
    assert.strictEqual(Timeline.rowsAbove("x".repeat(81), 80), 1)
    assert.strictEqual(Timeline.rowsAbove(`${"x".repeat(170)}\n\nab`, 80), 4)
    assert.isUndefined(Timeline.rowsAbove("漢字", 80))
    assert.isUndefined(Timeline.rowsAbove("a\tb", 80))
  })

  it("off a terminal the partial text is followed by the marker line, and the next attempt starts on its own line", () => {
    const { all } = play({ ...pipe, stream: true }, [
      [request(), 0],
      [delta("Partial wor"), 1],
      [restarted(11), 2],
      [request(2), 3],
      [delta("Final."), 4],
      [response, 5]
    ])
    assert.include(
      all,
      "Partial wor\n  ↺ [stream restarted (overloaded): 11 characters discarded, attempt 2]\n  → request m (attempt 2)"
    )
    assert.include(all, "tools\nFinal.\n  ← end_turn")
  })

  it("on a terminal with colour the partial text is rewritten struck through and dim, in place", () => {
    const view: Timeline.View = { ...tty, color: true, terminal: { columns: 10, rows: 24 } }
    const { writes, state } = play(view, [
      [request(), 0],
      [delta("Partial words\nthat fa"), 1],
      [restarted(21), 2]
    ])
    // 13 characters take two rows of 10, then the line the cursor is on: two rows up.
    assert.strictEqual(
      writes[2],
      "\x1b[2A\r\x1b[J\x1b[2;9mPartial words\x1b[0m\n\x1b[2;9mthat fa\x1b[0m\n" +
        "\x1b[33m  ↺ [stream restarted (overloaded): 21 characters discarded, attempt 2]\x1b[0m\n"
    )
    assert.strictEqual(state.partial, "")
  })

  it("text out of reach (taller than the screen, or thinking written after it) is not rewritten, only marked", () => {
    const tall = play({ ...tty, color: true, terminal: { columns: 10, rows: 3 } }, [
      [request(), 0],
      [delta("a\nb\nc\nd"), 1],
      [restarted(7), 2]
    ])
    assert.notInclude(tall.writes[2]!, "\x1b[3A")
    assert.strictEqual(
      tall.writes[2],
      "\n\x1b[33m  ↺ [stream restarted (overloaded): 7 characters discarded, attempt 2]\x1b[0m\n"
    )
    const interleaved = play({ ...tty, color: true, thinking: true, terminal: { columns: 80, rows: 24 } }, [
      [request(), 0],
      [delta("abc"), 1],
      [thinking("hmm"), 2],
      [restarted(3), 3]
    ])
    assert.notInclude(interleaved.writes[3]!, "\x1b[J")
  })
})

describe("timeline: the shell on TestClock", () => {
  it.effect("redraws the spinner as the Clock moves, stops once text streams, and the redrawing fiber ends", () =>
    Effect.gen(function* () {
      const writes: Array<string> = []
      const out: Render.Output = { write: (text) => void writes.push(text), tty: true, terminal: () => undefined }
      const human = yield* Render.human(out, { color: false, stream: true, thinking: false })
      const onEvent = human.observer.onEvent!
      yield* onEvent(stamp(request()))
      yield* TestClock.adjust("1 second")
      const spun = writes.join("")
      assert.include(spun, "⠋ waiting for m 0.0 s")
      assert.include(spun, "waiting for m 0.5 s")
      assert.include(spun, "⠋ waiting for m 1.0 s")
      yield* onEvent(stamp(delta("Hello")))
      const count = writes.length
      yield* TestClock.adjust("1 second")
      assert.strictEqual(writes.length, count)
      yield* onEvent(stamp(response))
      assert.strictEqual(yield* human.streamedAnswer, "Hello")
      const off = yield* Render.human({ ...out, tty: false }, { color: false, stream: false, thinking: false })
      yield* off.observer.onEvent!(stamp(delta("x")))
      assert.strictEqual(yield* off.streamedAnswer, "")
    })
  )
})
