/**
 * `agent simulate`: see what a retry configuration does to a fault plan before
 * deploying it. Prints the timeline of one seed, then the distribution of
 * total wait and attempts over many seeds, with an ASCII histogram (and an
 * SVG chart with `--svg`), or all of it as JSON with `--json`. Every run is
 * the real kernel on a virtual clock.
 *
 *     agent simulate --settings settings.json --faults "429:retry_after=2,529,529,ok" --runs 1000 --seed 7
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { settingsOptions } from "./settingsOptions.js"

const options = {
  ...settingsOptions,
  faults: Flag.String("faults").pipe(
    Flag.withMetavar("FAULTS"),
    Flag.withDescription(
      'Comma-separated results of successive model calls: an HTTP status (429, 529, 503 ...), a category (overloaded), or ok; with :retry_after=SECONDS. When the plan runs out, calls succeed. Example: "429:retry_after=2,529,529,ok"'
    )
  ),
  runs: Flag.Int("runs").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("How many seeds to simulate for the distribution (default 1000)"),
    Flag.withDefault(1_000)
  ),
  seed: Flag.Int("seed").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("The seed whose timeline is printed (default 1)"),
    Flag.withDefault(1)
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDescription(
      "Print the report as one JSON document instead (agent-kernel/simulation@1: settings, faults, the seed's timeline and outcome, the distribution over --runs seeds)"
    ),
    Flag.withDefault(false)
  ),
  svg: Flag.String("svg").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription("Also write the total-wait histogram as an SVG chart"),
    Flag.optional
  )
}

/** What the options parse to. */
export type Input = Command.Command.Config.Infer<typeof options>

/**
 * The `simulate` subcommand.
 *
 * @example
 * ```ts
 * import * as Command from "effect/cli/Command"
 * import { simulate } from "./simulate.js"
 *
 * const root = Command.make("agent").pipe(Command.withSubcommands([simulate]))
 * ```
 */
export const simulate = Command.make("simulate", options, (input) =>
  // The kernel's simulator is loaded by this command only: the command line parses without it.
  Effect.flatMap(
    Effect.promise(() => import("./simulation.js")),
    ({ report }) => report(input)
  )
).pipe(
  Command.withDescription(
    "Simulate the retry policy of a settings file against a fault plan: the timeline of one seed, and the distribution of total wait and attempts over many"
  )
)
