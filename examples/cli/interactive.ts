/**
 * The interactive prompt of `agent` on a terminal: each line is a run of one
 * session.
 *
 * - Ctrl-C during a run stops that run, as Ctrl-C stops a `--prompt` run: its
 *   tool and plugin calls are finalised and it ends `interrupted`. The prompt
 *   comes back once it has ended, and the session goes on.
 * - Ctrl-C clears what was typed on the line; at the prompt, on an empty line
 *   it says how to leave, and a second Ctrl-C leaves, as Ctrl-D and `exit` do.
 * - Lines typed while a run goes on are run after it, in order.
 *
 * The terminal is in raw mode while the prompt is open (readline's), so Ctrl-C
 * reaches the prompt as a key, never as a signal to the process. Every key
 * goes through one queue with the ends of the runs, read by one fiber, so no
 * key is lost to a race. What a key does is decided by `atPrompt` and
 * `whileRunning`, pure.
 */
import type { RunOutcome } from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as readline from "node:readline"

/** What reaches the prompt: a line, Ctrl-C (with or without text typed on the line), Ctrl-D, or a run's end. */
export type Input<E> =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "Interrupt"; readonly typed: boolean }
  | { readonly _tag: "End" }
  | { readonly _tag: "RunEnded"; readonly exit: Exit.Exit<RunOutcome.RunOutcome, E> }

/** The first prompt's words on how to use it. */
export const welcome = "Type a prompt and press Enter. Ctrl-C stops a run; Ctrl-D or exit leaves.\n"

/** What an idle Ctrl-C on an empty line says. */
export const leaveHint = "(Ctrl-C again, Ctrl-D or exit to leave)\n"

/** What the prompt does with an input while no run goes on. */
export type AtPrompt =
  | { readonly _tag: "Run"; readonly text: string }
  | { readonly _tag: "Prompt" }
  | { readonly _tag: "ClearLine" }
  | { readonly _tag: "Hint" }
  | { readonly _tag: "Leave" }

/**
 * The decision at an idle prompt. `armed`: the last input was a Ctrl-C on an
 * empty line, so another one leaves.
 */
export const atPrompt = (input: Input<unknown>, armed: boolean): AtPrompt => {
  switch (input._tag) {
    case "End":
      return { _tag: "Leave" }
    case "Interrupt":
      return input.typed ? { _tag: "ClearLine" } : armed ? { _tag: "Leave" } : { _tag: "Hint" }
    case "Line": {
      const text = input.text.trim()
      return text === "exit" ? { _tag: "Leave" } : text === "" ? { _tag: "Prompt" } : { _tag: "Run", text: input.text }
    }
    case "RunEnded":
      return { _tag: "Prompt" }
  }
}

/** What the prompt does with an input while a run goes on. */
export type WhileRunning<E> =
  | { readonly _tag: "Stop" }
  | { readonly _tag: "Queue"; readonly text: string }
  | { readonly _tag: "LeaveAfter" }
  | { readonly _tag: "Ended"; readonly exit: Exit.Exit<RunOutcome.RunOutcome, E> }

/** The decision while a run goes on: Ctrl-C stops it (once), a line waits its turn, Ctrl-D leaves after it. */
export const whileRunning = <E>(input: Input<E>): WhileRunning<E> => {
  switch (input._tag) {
    case "Interrupt":
      return { _tag: "Stop" }
    case "Line":
      return { _tag: "Queue", text: input.text }
    case "End":
      return { _tag: "LeaveAfter" }
    case "RunEnded":
      return { _tag: "Ended", exit: input.exit }
  }
}

/** The session the prompt drives. */
export interface Session<E> {
  /** One run of the session; interrupting it ends it `interrupted`. */
  readonly run: (input: string) => Effect.Effect<RunOutcome.RunOutcome, E>
  /** Shows how a run ended: its outcome, or `undefined` for a run Ctrl-C stopped. */
  readonly report: (outcome: RunOutcome.RunOutcome | undefined) => Effect.Effect<void>
  /** Where the prompt is written: stdout, or stderr under --json. */
  readonly output: NodeJS.WritableStream
}

/** Clears the line being typed with readline's own keys: to its end, then delete back to its start. */
const clearLine = (rl: readline.Interface) => {
  rl.write(null, { ctrl: true, name: "e" })
  rl.write(null, { ctrl: true, name: "u" })
}

/** The terminal's prompt, feeding every key to `inputs`, closed with the scope. */
const openPrompt = <E>(inputs: Queue.Queue<Input<E>>, output: NodeJS.WritableStream) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const rl = readline.createInterface({
        input: process.stdin,
        output,
        prompt: "you> ",
        terminal: process.stdin.isTTY === true
      })
      rl.on("line", (text) => Queue.offerUnsafe(inputs, { _tag: "Line", text }))
      rl.on("SIGINT", () => {
        // What was typed is cleared at once, as a shell does, so that the next Ctrl-C finds the line empty.
        const typed = rl.line !== ""
        if (typed) clearLine(rl)
        Queue.offerUnsafe(inputs, { _tag: "Interrupt", typed })
      })
      rl.on("close", () => Queue.offerUnsafe(inputs, { _tag: "End" }))
      return rl
    }),
    (rl) =>
      Effect.sync(() => {
        rl.removeAllListeners("close")
        rl.close()
      })
  )

/**
 * Runs the prompt until the user leaves; the status of the last run, if any
 * ran (a run Ctrl-C stopped counts, `interrupted`). A run's failure (not its
 * status: an error of the store under it) ends the prompt with that failure.
 */
export const prompt = <E>(session: Session<E>): Effect.Effect<RunOutcome.RunStatus | undefined, E> =>
  Effect.scoped(
    Effect.gen(function* () {
      const inputs = yield* Queue.unbounded<Input<E>>()
      const rl = yield* openPrompt(inputs, session.output)
      const say = (text: string) => Effect.sync(() => void session.output.write(text))
      let last: RunOutcome.RunStatus | undefined
      // Lines typed during a run, to run next.
      const waiting: Array<string> = []
      let armed = false
      yield* say(welcome)
      yield* Effect.sync(() => rl.prompt())
      while (true) {
        const input = waiting.length > 0 ? { _tag: "Line" as const, text: waiting.shift()! } : yield* Queue.take(inputs)
        const decision = atPrompt(input, armed)
        armed = decision._tag === "Hint"
        switch (decision._tag) {
          case "Leave":
            return last
          case "Prompt":
            yield* Effect.sync(() => rl.prompt())
            continue
          case "ClearLine":
            // Cleared as the key came (see openPrompt).
            continue
          case "Hint":
            yield* say(`\n${leaveHint}`)
            yield* Effect.sync(() => rl.prompt())
            continue
          case "Run": {
            const ended = yield* runOne(session, inputs, decision.text, waiting)
            if (Exit.isFailure(ended.exit) && !Cause.hasInterruptsOnly(ended.exit.cause)) {
              return yield* Effect.failCause(ended.exit.cause)
            }
            const outcome = Exit.isSuccess(ended.exit) ? ended.exit.value : undefined
            last = outcome?.status ?? "interrupted"
            yield* session.report(outcome)
            if (ended.leave) return last
            if (waiting.length === 0) yield* Effect.sync(() => rl.prompt())
          }
        }
      }
    })
  )

/**
 * One run, forked so that the prompt keeps reading keys: Ctrl-C interrupts it,
 * lines typed meanwhile are kept in `waiting`, Ctrl-D leaves once it has ended.
 */
const runOne = <E>(session: Session<E>, inputs: Queue.Queue<Input<E>>, text: string, waiting: Array<string>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(
      session
        .run(text)
        .pipe(Effect.onExit((exit) => Queue.offer(inputs, { _tag: "RunEnded", exit }).pipe(Effect.asVoid)))
    )
    let leave = false
    let stopping = false
    while (true) {
      const decision = whileRunning(yield* Queue.take(inputs))
      switch (decision._tag) {
        case "Stop":
          // Its end arrives as RunEnded once its tools and plugins are finalised; keys are read meanwhile.
          if (!stopping) yield* Effect.forkChild(Fiber.interrupt(fiber))
          stopping = true
          continue
        case "Queue":
          waiting.push(decision.text)
          continue
        case "LeaveAfter":
          leave = true
          continue
        case "Ended":
          return { exit: decision.exit, leave }
      }
    }
  })
