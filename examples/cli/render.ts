/**
 * How the CLI shows a run: a live human timeline (colour and a retry
 * countdown on a TTY, plain text otherwise) or JSON Lines, one event a line.
 */
import type { EventBus, KernelEvent, RunOutcome } from "@agent-kernel/kernel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"

export interface Output {
  readonly write: (text: string) => void
  readonly tty: boolean
}

export const stdout: Output = {
  write: (text) => void process.stdout.write(text),
  tty: process.stdout.isTTY === true
}

const paint = (enabled: boolean) => {
  const wrap = (code: string) => (text: string) => (enabled ? `\x1b[${code}m${text}\x1b[0m` : text)
  return { dim: wrap("2"), red: wrap("31"), green: wrap("32"), yellow: wrap("33"), cyan: wrap("36"), bold: wrap("1") }
}

const seconds = (ms: number) => (ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`)
const oneLine = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** One human line per event, or nothing for events the timeline leaves out. */
export const describe = (event: KernelEvent.KernelEvent, color: boolean): string | undefined => {
  const c = paint(color)
  switch (event.type) {
    case "run_started":
      return c.bold(`▶ run ${event.run_id} on ${event.model}`)
    case "turn_started":
      return c.dim(`turn ${event.turn}`)
    case "model_request":
      return `  → request ${event.model}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}: ${
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
      return c.red(`  ⛔ the provider-wide retry quota refused a retry after ${event.category} on ${event.model}`)
    case "stream_restarted":
      return c.yellow(`  ↺ the stream failed mid-way (${event.category}): the whole request is restarted`)
    case "fallback":
      return c.yellow(`  ⇢ fallback ${event.from} → ${event.to} after ${event.category}`)
    case "context_reduced":
      return c.cyan(`  ✂ context reduced: ~${event.before} → ~${event.after} tokens (target ${event.target})`)
    case "content_filtered":
      return c.red(
        `  ⚠ content filtered: ${event.message}${event.partial_text ? `; kept "${oneLine(event.partial_text)}"` : ""}`
      )
    case "tool_call_started":
      return `  ⚙ ${event.name} …`
    case "tool_result":
      return event.is_error
        ? c.red(`  ✗ ${event.name} failed after ${seconds(event.duration_ms)}: ${oneLine(event.preview, 160)}`)
        : c.green(`  ✓ ${event.name} in ${seconds(event.duration_ms)}: ${oneLine(event.preview)}`)
    case "breaker_changed":
      return c.red(`  ⛔ breaker for ${event.subject}: ${event.from} → ${event.to} (${event.reason})`)
    case "warning":
      return c.yellow(`  ! ${event.message}`)
    case "turn_ended":
    case "run_ended":
      return undefined
  }
}

/** The human timeline. On a TTY, a countdown runs while the kernel waits to retry. */
export const human = (out: Output, color: boolean): EventBus.Observer => {
  let countdown: Fiber.RuntimeFiber<unknown> | undefined
  const stopCountdown = Effect.suspend(() => {
    const fiber = countdown
    countdown = undefined
    return fiber === undefined
      ? Effect.void
      : Effect.zipRight(
          Fiber.interrupt(fiber),
          Effect.sync(() => out.write("\r\x1b[K"))
        )
  })
  const startCountdown = (delayMs: number) =>
    Effect.gen(function* () {
      let left = delayMs
      countdown = yield* Effect.forkDaemon(
        Effect.sync(() => {
          out.write(`\r\x1b[K    waiting ${seconds(Math.max(0, left))}`)
          left -= 100
        }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(100))))
      )
    })
  return {
    onEvent: (event) =>
      Effect.gen(function* () {
        yield* stopCountdown
        const line = describe(event, color)
        if (line !== undefined) out.write(`${line}\n`)
        if (out.tty && event.type === "retry_scheduled" && event.delay_ms >= 500) yield* startCountdown(event.delay_ms)
      })
  }
}

/** JSON Lines: every event as it is, one a line. */
export const jsonLines = (out: Output): EventBus.Observer => ({
  onEvent: (event) => Effect.sync(() => out.write(`${JSON.stringify(event)}\n`))
})

/** The closing summary of a run. */
export const summary = (outcome: RunOutcome.RunOutcome, color: boolean): string => {
  const c = paint(color)
  const status = outcome.status === "completed" ? c.green(outcome.status) : c.red(outcome.status)
  const lines = [
    "",
    ...(outcome.final_text ? [outcome.final_text, ""] : []),
    `${c.bold("status")}   ${status}${outcome.error ? ` — ${outcome.error.category}: ${oneLine(outcome.error.message, 200)}` : ""}`,
    `${c.bold("turns")}    ${outcome.turns}`,
    `${c.bold("retries")}  ${outcome.retries.max_per_call} at most per call, ${outcome.retries.session_total} in the session`,
    `${c.bold("tokens")}   ${outcome.usage.input_tokens} in / ${outcome.usage.output_tokens} out`,
    `${c.bold("cost")}     ${outcome.cost_usd === null ? "unknown (no price for the model)" : `$${outcome.cost_usd.toFixed(4)}`}`,
    `${c.bold("time")}     ${seconds(outcome.wall_ms)}`
  ]
  return `${lines.join("\n")}\n`
}
