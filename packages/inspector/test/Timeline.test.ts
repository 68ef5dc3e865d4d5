/**
 * A run's timeline read from a real session's events (the kernel on the
 * Anthropic provider over the fake provider server, with real MCP plugin
 * processes): each attempt with its outcome, each wait with its source, the
 * fallback, the reduction, the crashes and the breaker, the budget; and the
 * pure cases a live or resumed run adds.
 */
import type { KernelEvent } from "@agent-kernel/kernel"
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { InspectorStore } from "../src/index.js"
import { Runs, Timeline } from "../src/index.js"
import * as Lab from "./support/lab.js"

const outcomeOf = (attempt: Timeline.Attempt) =>
  attempt.outcome._tag === "Failed"
    ? `${attempt.model} ${attempt.outcome.category} → ${attempt.outcome.next}`
    : attempt.outcome._tag === "Answered"
      ? `${attempt.model} ${attempt.outcome.stop_reason}`
      : `${attempt.model} ${attempt.outcome._tag}`

describe("a run's timeline, from a real session", () => {
  it.live(
    "the tour: retries by source, a fallback, a reduction, crashes opening the breaker, the budget; the next run's content filter",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ tour: Lab.tour })
        expect((yield* lab.memory.run("tour", "Fetch the quarterly reports")).status).toBe("completed")
        expect((yield* lab.memory.run("tour", "And the next quarter?")).status).toBe("content_filtered")
        const detail = yield* lab.memory.store.session("tour")
        const [first, second] = detail.runs
        const read = (run: InspectorStore.RunSummary) =>
          lab.memory.store.events("tour", {
            after: run.first_seq - 1,
            until: run.last_seq,
            limit: 100_000,
            omitDeltas: true
          })
        const tour = Timeline.make(yield* read(first!))

        expect(tour.run_id).toBe("tour/run-1")
        expect(tour.status).toBe("completed")
        expect(tour.attempts.map(outcomeOf)).toEqual([
          "model-a rate_limited → retry",
          "model-a overloaded → retry",
          "model-a overloaded → fallback",
          "model-b tool_use",
          "model-a tool_use",
          "model-a context_overflow → reduction",
          "model-a end_turn"
        ])
        expect(tour.waits.map((wait) => [wait.source, wait.delay_ms, wait.retry_after_ms])).toEqual([
          ["retry_after", 400, 400],
          ["backoff", 300, null]
        ])
        // Each wait starts as its attempt fails and ends as the retry is sent.
        tour.waits.forEach((wait, i) => {
          expect(wait.start).toBe(tour.attempts[i]!.end)
          expect(wait.end).toBe(tour.attempts[i + 1]!.start)
          expect(wait.end - wait.start).toBeGreaterThanOrEqual(wait.delay_ms)
        })
        expect(tour.markers.map((marker) => [marker.type, marker.label])).toEqual([
          ["fallback", "→ model-b"],
          ["reduction", expect.stringMatching(/^\d+ → \d+$/)],
          ["end", "completed"]
        ])
        const fallback = tour.markers[0]!
        expect(fallback.at).toBe(tour.attempts[2]!.end)
        expect(tour.tools.map((tool) => [tool.name, tool.is_error, tool.crash?.plugin ?? null])).toEqual([
          ["read_file", false, null],
          ["fetch_report", true, "chaos"],
          ["fetch_report", true, "chaos"],
          ["fetch_report", true, "chaos"]
        ])
        expect(tour.crashes.map((crash) => crash.status)).toEqual([
          "killed by signal SIGKILL",
          "killed by signal SIGKILL",
          "killed by signal SIGKILL"
        ])
        expect(tour.breakers.map((change) => `${change.subject} ${change.from} → ${change.to}`)).toEqual([
          "chaos closed → open"
        ])
        // The breaker opens with the third crash, after the second.
        expect(tour.breakers[0]!.at).toBeGreaterThan(tour.crashes[1]!.at)
        expect(tour.breakers[0]!.at).toBeLessThanOrEqual(tour.crashes[2]!.at)
        expect(tour.breakerSpans.map((span) => span.state)).toEqual(["closed", "open"])
        expect(tour.budget.map((point) => [point.used, point.left])).toEqual([
          [1, 9],
          [2, 8],
          [3, 7]
        ])
        expect(tour.turns.map((turn) => turn.turn)).toEqual([1, 2, 3])

        const filtered = Timeline.make(yield* read(second!))
        expect(filtered.status).toBe("content_filtered")
        expect(filtered.attempts.map((attempt) => attempt.outcome._tag)).toEqual(["Filtered"])
        expect(filtered.markers.map((marker) => marker.type)).toEqual(["filter", "end"])

        const svg = Timeline.toSvg(tour)
        const kinds = [...svg.matchAll(/data-kind="(\w+)"/g)].map((match) => match[1])
        expect(kinds.filter((kind) => kind === "attempt")).toHaveLength(7)
        expect(kinds.filter((kind) => kind === "wait")).toHaveLength(2)
        expect(kinds.filter((kind) => kind === "crash")).toHaveLength(3)
        expect(kinds.filter((kind) => kind === "breaker")).toHaveLength(1)
        expect(svg).toContain('class="ti wait retry-after"')
        expect(svg).toContain('class="ti wait backoff"')
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

const logged = (events: ReadonlyArray<KernelEvent.KernelEvent>): Array<InspectorStore.LoggedEvent> =>
  events.map((event, i) => ({ seq: i + 1, event }))

const request = (at: number, attempt: number): KernelEvent.KernelEvent => ({
  type: "model_request",
  at,
  turn: 1,
  model: "m",
  attempt,
  messages: 1,
  estimated_tokens: 10,
  tools: 0
})

describe("a run's timeline, pure cases", () => {
  it("a live run reaches to now: its attempt in flight, its tool running, its wait planned", () => {
    const t = Timeline.make(
      logged([
        { type: "run_started", at: 1_000, run_id: "s/run-1", model: "m", input: "go" },
        request(1_010, 1),
        {
          type: "retry_scheduled",
          at: 1_020,
          turn: 1,
          model: "m",
          category: "overloaded",
          message: "Overloaded",
          attempt: 1,
          session_retries_used: 1,
          session_retries_left: 4,
          delay_ms: 500,
          retry_after_ms: null,
          source: "backoff"
        }
      ]),
      { now: 1_100 }
    )
    expect(t.status).toBe(null)
    expect(t.waits).toEqual([expect.objectContaining({ start: 1_020, end: 1_520, source: "backoff" })])
    expect(t.end).toBe(1_520)
    const running = Timeline.make(
      logged([
        { type: "run_started", at: 1_000, run_id: "s/run-1", model: "m", input: "go" },
        request(1_010, 1),
        { type: "tool_call_started", at: 1_050, turn: 1, id: "t1", name: "slow" }
      ]),
      { now: 2_000 }
    )
    expect(running.attempts.map((attempt) => [attempt.outcome._tag, attempt.end])).toEqual([["Pending", 2_000]])
    expect(running.tools.map((tool) => [tool.name, tool.is_error, tool.end])).toEqual([["slow", null, 2_000]])
  })

  it("a run resumed after its process stopped: the cut attempt, a resumed marker, one run", () => {
    const events = logged([
      { type: "run_started", at: 1_000, run_id: "s/run-1", model: "m", input: "go" },
      request(1_010, 1),
      { type: "run_started", at: 5_000, run_id: "s/run-1", model: "m", input: "go" },
      request(5_010, 1)
    ])
    const t = Timeline.make(events, { now: 6_000 })
    expect(t.attempts.map((attempt) => attempt.outcome)).toEqual([
      { _tag: "Cut", why: "process stopped" },
      { _tag: "Pending" }
    ])
    expect(t.markers.map((marker) => marker.type)).toEqual(["resumed"])
  })

  it("a paused run: the attempt that paused it, a paused marker, the session paused until run_resumed", () => {
    const paused: KernelEvent.KernelEvent = {
      type: "run_paused",
      at: 1_030,
      run_id: "s/run-1",
      turn: 1,
      attempt: 1,
      reason: "quota_exceeded",
      error: { category: "quota_exceeded", message: "out of credits", status: 429, retry_after_ms: 60_000 },
      retries: { max_per_call: 0, session_total: 0 },
      resume_at: 61_030
    }
    const before = logged([
      { type: "run_started", at: 1_000, run_id: "s/run-1", model: "m", input: "go" },
      request(1_010, 1),
      paused
    ])
    const t = Timeline.make(before, { now: 2_000 })
    expect(t.attempts.map((attempt) => attempt.outcome)).toEqual([
      {
        _tag: "Failed",
        category: "quota_exceeded",
        message: "out of credits",
        status: null,
        retry_after_ms: 60_000,
        next: "pause"
      }
    ])
    expect(t.markers.map((marker) => [marker.type, marker.label])).toEqual([["paused", "paused: quota_exceeded"]])
    expect(t.markers[0]!.detail).toContain("resumes at 1970-01-01T00:01:01.030Z")
    const [run] = Runs.fromEvents(before)
    expect(run?.paused).toEqual({
      reason: "quota_exceeded",
      error: paused.type === "run_paused" ? paused.error : null,
      paused_at: 1_030,
      resume_at: 61_030
    })
    expect(Runs.statusOf(run, false)).toEqual({ status: "paused", run_status: null })

    const after = logged([
      ...before.map((entry) => entry.event),
      {
        type: "run_resumed",
        at: 90_000,
        run_id: "s/run-1",
        turn: 1,
        attempt: 1,
        reset_budget: false,
        paused_ms: 88_970
      },
      request(90_010, 2)
    ])
    const resumed = Timeline.make(after, { now: 91_000 })
    expect(resumed.markers.map((marker) => marker.type)).toEqual(["paused", "resumed"])
    const [going] = Runs.fromEvents(after)
    expect(Runs.statusOf(going, true)).toEqual({ status: "running", run_status: null })
  })

  it("concurrent tool calls take rows of their own", () => {
    const t = Timeline.make(
      logged([
        { type: "run_started", at: 0, run_id: "s/run-1", model: "m", input: "go" },
        { type: "tool_call_started", at: 10, turn: 1, id: "a", name: "a" },
        { type: "tool_call_started", at: 12, turn: 1, id: "b", name: "b" },
        { type: "tool_result", at: 30, turn: 1, id: "a", name: "a", is_error: false, duration_ms: 20, preview: "" },
        { type: "tool_result", at: 40, turn: 1, id: "b", name: "b", is_error: false, duration_ms: 28, preview: "" },
        { type: "tool_call_started", at: 41, turn: 1, id: "c", name: "c" },
        { type: "tool_result", at: 50, turn: 1, id: "c", name: "c", is_error: false, duration_ms: 9, preview: "" }
      ])
    )
    expect(t.tools.map((tool) => [tool.name, tool.row])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 0]
    ])
    expect(t.toolRows).toBe(2)
  })

  it("a crash is read from the plugins' message, and only from it", () => {
    expect(
      Timeline.crashOf('Plugin "fx" crashed while handling the call (process_crashed: exit code 3, pid 7).')
    ).toEqual({ plugin: "fx", status: "exit code 3" })
    expect(
      Timeline.crashOf('Plugin "fx" exited during startup (process_crashed: killed by signal SIGTERM, pid 9).')
    ).toEqual({ plugin: "fx", status: "killed by signal SIGTERM" })
    expect(Timeline.crashOf("Permission denied: the plugin crashed")).toBe(undefined)
  })
})
