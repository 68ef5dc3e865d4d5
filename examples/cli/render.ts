/**
 * How the CLI shows a run: a live human timeline (the answer streaming, a
 * spinner and a retry countdown on a TTY, plain text otherwise) or JSON
 * Lines, one event a line. The timeline's decisions are pure (timeline.ts);
 * this is the shell that writes them and redraws the status line.
 */
import type { EventBus, KernelEvent, RunOutcome } from "@agent-kernel/kernel"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Timeline from "./timeline.js"

/** Where the CLI writes. */
export interface Output {
  readonly write: (text: string) => void
  readonly tty: boolean
  /** The terminal's current size, if it is one. */
  readonly terminal: () => { readonly columns: number; readonly rows: number } | undefined
}

/** The process's stdout. */
export const stdout: Output = {
  write: (text) => void process.stdout.write(text),
  tty: process.stdout.isTTY === true,
  terminal: () =>
    process.stdout.isTTY === true ? { columns: process.stdout.columns, rows: process.stdout.rows } : undefined
}

/** How often the status line is redrawn. */
const redrawEvery = Duration.millis(100)

/** The human timeline as an observer, and what it has shown. */
export interface Human {
  readonly observer: EventBus.Observer
  /** The text of the last model response it wrote as the response streamed; "" if none. */
  readonly streamedAnswer: Effect.Effect<string>
  /** The last run's end, as its `run_ended` event told it (a run that was interrupted has no outcome). */
  readonly lastRun: Effect.Effect<KernelEvent.EventOf<"run_ended"> | undefined>
}

/**
 * The human timeline. While the status line shows something (a TTY only), a
 * fiber redraws it every 100 ms on the Clock, and stops by itself once it
 * shows nothing.
 */
export const human = (out: Output, options: Omit<Timeline.View, "tty" | "terminal">): Effect.Effect<Human> =>
  Effect.gen(function* () {
    // `redrawing`: a fiber redraws the status line. Kept with the timeline so that the decision to start
    // one and its own decision to stop are taken atomically with the state they read.
    const shown = yield* Ref.make({ timeline: Timeline.initial, redrawing: false })
    const lastRun = yield* Ref.make<KernelEvent.EventOf<"run_ended"> | undefined>(undefined)
    const view = (): Timeline.View => ({ ...options, tty: out.tty, terminal: out.terminal() })
    // The write happens inside the update, so two writers (tool calls running at once) never swap their output.
    const write = (current: Timeline.State, decide: (state: Timeline.State) => Timeline.Step) => {
      const { state, write } = decide(current)
      if (write !== "") out.write(write)
      return state
    }
    const redraw: Effect.Effect<void> = Effect.andThen(
      Effect.sleep(redrawEvery),
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(shown, ({ timeline }) => {
          const after = write(timeline, (state) => Timeline.tick(view(), state, now))
          const again = Timeline.animated(view(), after)
          return [again, { timeline: after, redrawing: again }]
        })
      )
    ).pipe(Effect.repeat({ while: (again) => again }), Effect.asVoid)
    const shownEvent = (event: KernelEvent.KernelEvent) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          Ref.modify(shown, ({ timeline, redrawing }) => {
            const after = write(timeline, (state) => Timeline.step(view(), state, event, now))
            const animated = Timeline.animated(view(), after)
            return [animated && !redrawing, { timeline: after, redrawing: redrawing || animated }]
          }),
          (start) => (start ? Effect.asVoid(Effect.forkDetach(redraw)) : Effect.void)
        )
      )
    return {
      observer: {
        onEvent: (event) =>
          Effect.andThen(event.type === "run_ended" ? Ref.set(lastRun, event) : Effect.void, shownEvent(event))
      },
      streamedAnswer: Effect.map(Ref.get(shown), ({ timeline }) => (options.stream ? timeline.answer : "")),
      lastRun: Ref.get(lastRun)
    }
  })

/** JSON Lines: every event as it is, one a line. */
export const jsonLines = (out: Output): EventBus.Observer => ({
  onEvent: (event) => Effect.sync(() => out.write(`${JSON.stringify(event)}\n`))
})

/** How a run ended, as the summary reads it: its outcome, or its `run_ended` event (a run that was interrupted). */
export type Ended = Pick<
  RunOutcome.RunOutcome,
  "status" | "turns" | "retries" | "usage" | "cost_usd" | "wall_ms" | "final_text"
> & { readonly error?: { readonly category: string; readonly message: string } | null | undefined }

/**
 * The closing summary of a run. The answer is printed unless it was printed
 * already as it streamed (`streamed`, the text the timeline wrote); text from
 * the model or the server is cleaned as the timeline cleans it
 * (`Timeline.clean`).
 */
export const summary = (outcome: Ended, color: boolean, streamed = ""): string => {
  const c = Timeline.styles(color)
  const { oneLine, seconds } = Timeline
  const status = outcome.status === "completed" ? c.green(outcome.status) : c.red(outcome.status)
  // Cleaned as the streamed text was, so that an answer already shown is recognised, and none is shown raw.
  const answer = Timeline.clean(outcome.final_text)
  const lines = [
    "",
    ...(answer && answer !== streamed ? [answer, ""] : []),
    `${c.bold("status")}   ${status}${outcome.error ? ` — ${outcome.error.category}: ${oneLine(outcome.error.message, 200)}` : ""}`,
    `${c.bold("turns")}    ${outcome.turns}`,
    `${c.bold("retries")}  ${outcome.retries.max_per_call} at most per call, ${outcome.retries.session_total} in the session`,
    `${c.bold("tokens")}   ${outcome.usage.input_tokens} in / ${outcome.usage.output_tokens} out`,
    `${c.bold("cost")}     ${outcome.cost_usd === null ? "unknown (no price for the model)" : `$${outcome.cost_usd.toFixed(4)}`}`,
    `${c.bold("time")}     ${seconds(outcome.wall_ms)}`
  ]
  return `${lines.join("\n")}\n`
}
