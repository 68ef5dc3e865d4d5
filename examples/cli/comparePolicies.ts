/**
 * `agent compare-policies`: N simulated clients against a provider with a
 * fixed capacity, once per retry policy (the kernel's default, the Anthropic
 * SDK's, the Vercel AI SDK's, with `--settings` or `--set` yours and, with
 * `--limiter adaptive`, the kernel's default behind the cluster's adaptive
 * rate limiter), in virtual time. Prints completion, attempts per success, p50/p99 run time and
 * the retries spent per policy; writes the report as JSON and an SVG chart.
 *
 *     agent compare-policies --clients 1000 --capacity 50 --turns 3 --settings mine.json --json report.json --svg report.svg
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { settingsOptions } from "./settingsOptions.js"

const options = {
  ...settingsOptions,
  clients: Flag.Int("clients").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("Simulated clients, each running one session (default 1000)"),
    Flag.withDefault(1_000)
  ),
  capacity: Flag.Int("capacity").pipe(
    Flag.withMetavar("RPS"),
    Flag.withDescription("Requests the provider admits in any one second; the rest get a 429 (default 50)"),
    Flag.withDefault(50)
  ),
  turns: Flag.Int("turns").pipe(
    Flag.withMetavar("T"),
    Flag.withDescription("Successful model calls each client's run needs (default 3)"),
    Flag.withDefault(3)
  ),
  arrivalMs: Flag.Int("arrival-ms").pipe(
    Flag.withMetavar("MS"),
    Flag.withDescription("The clients start evenly over this window (default 0: all at once)"),
    Flag.withDefault(0)
  ),
  retryAfter: Flag.Literals("retry-after", ["ms", "seconds", "none"]).pipe(
    Flag.withDescription(
      "What the provider's 429 says about when it has room: the exact wait in ms (a retry-after-ms; default), the wait rounded up to whole seconds (a retry-after alone), or none"
    ),
    Flag.withDefault("ms")
  ),
  seed: Flag.Int("seed").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("Seeds every policy's jitter: the same seed gives the same report (default 1)"),
    Flag.withDefault(1)
  ),
  limiter: Flag.Literals("limiter", ["none", "adaptive"]).pipe(
    Flag.withDescription(
      "adaptive adds a row: the kernel's default behind the cluster's adaptive rate limiter (ProviderLimiter, AdaptiveRate.defaults), which learns the provider's capacity from its 429s; none (default) compares the retry policies alone"
    ),
    Flag.withDefault("none")
  ),
  json: Flag.String("json").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription("Also write the report as JSON (- for stdout, instead of the table)"),
    Flag.optional
  ),
  svg: Flag.String("svg").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription("Also write the report as an SVG chart"),
    Flag.optional
  )
}

/** What the options parse to. */
export type Input = Command.Command.Config.Infer<typeof options>

/**
 * The `compare-policies` subcommand.
 *
 * @example
 * ```ts
 * import * as Command from "effect/cli/Command"
 * import { comparePolicies } from "./comparePolicies.js"
 *
 * const root = Command.make("agent").pipe(Command.withSubcommands([comparePolicies]))
 * ```
 */
export const comparePolicies = Command.make("compare-policies", options, (input) =>
  // The kernel's fleet simulator is loaded by this command only: the command line parses without it.
  Effect.flatMap(
    Effect.promise(() => import("./comparison.js")),
    ({ report }) => report(input)
  )
).pipe(
  Command.withDescription(
    "Compare retry policies (the kernel's default, the Anthropic SDK's, the Vercel AI SDK's, yours) on N simulated clients against a capacity-limited provider, in virtual time"
  )
)
