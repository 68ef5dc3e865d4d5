/**
 * `agent fake-server`: the fake provider as a local server, so that every
 * recovery path can be tried against it from the installed command: rate
 * limits, overload, a stream that breaks, a connection reset, an expired key.
 *
 *     agent fake-server --plan flaky-network --port 8787
 *     ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=any agent --provider anthropic --prompt hi
 *
 * It speaks the Anthropic Messages, OpenAI Chat Completions and OpenAI
 * Responses wire formats; its first line on stdout is its URL. It runs until
 * SIGINT or SIGTERM, which close it and every connection.
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Scenarios from "./scenarios.js"

/** The port range `--port` takes; 0 picks a free port. */
const maxPort = 65_535

const options = {
  plan: Flag.String("plan").pipe(
    Flag.withMetavar("NAME|FILE"),
    Flag.withDescription(
      `A chaos plan (${Scenarios.chaosPlanNames.join(", ")}) or a fault-plan file; after its steps the server answers happily, or repeats the last if the plan says so (default: happy)`
    ),
    Flag.withDefault("happy")
  ),
  port: Flag.Int("port").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("The port to listen on (default 0: a free one, printed)"),
    Flag.withDefault(0)
  ),
  host: Flag.String("host").pipe(
    Flag.withMetavar("HOST"),
    Flag.withDescription("The address to listen on (default 127.0.0.1)"),
    Flag.withDefault("127.0.0.1")
  )
}

/** What the options parse to. */
export type Input = Command.Command.Config.Infer<typeof options>

/** Whether `port` is one `--port` takes. */
export const validPort = (port: number): boolean => Number.isInteger(port) && port >= 0 && port <= maxPort

/** The `fake-server` subcommand; the server itself is loaded when it runs (fakeProvider.ts). */
export const fakeServer = Command.make("fake-server", options, (input) =>
  Effect.flatMap(
    Effect.promise(() => import("./fakeProvider.js")),
    ({ serve }) => serve(input)
  )
).pipe(
  Command.withDescription(
    "Run the fake provider as a local server (Anthropic and OpenAI wire formats) playing a chaos plan or a fault-plan file, until SIGINT or SIGTERM; its URL is the first line on stdout"
  )
)
