/**
 * `agent ui --session PATH` or `agent ui --database-url URL`: the run
 * inspector in the browser, over a durable store that a running `agent
 * --session PATH` (or any process on the Postgres store) may be writing: its
 * sessions, each run's timeline of recovery decisions, live events,
 * interrupt, and, given a provider (`--provider`, with the model options
 * `agent` takes), resume of a run no live process holds. The token it prints
 * guards the actions. It listens on 127.0.0.1 unless told otherwise, opens
 * nothing by itself, and runs until SIGINT or SIGTERM.
 *
 *     agent ui --session agent.db
 *     agent ui --session agent.db --provider anthropic --mcp "node tools.mjs"
 *     agent ui --database-url postgres://localhost/agents
 *
 * The inspector is loaded only when this command runs (inspector.ts).
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { modelOptions } from "./agent.js"

const options = {
  session: Flag.String("session").pipe(
    Flag.withMetavar("PATH"),
    Flag.withDescription(
      "The embedded session store to inspect (agent --session PATH); read beside a process that runs it. Or --database-url"
    ),
    Flag.optional
  ),
  databaseUrl: Flag.Redacted("database-url").pipe(
    Flag.withMetavar("URL"),
    Flag.withDescription(
      "The Postgres session store to inspect (postgres://...); read beside the processes that run it"
    ),
    Flag.optional
  ),
  port: Flag.Int("port").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("The port to listen on (default 4319; 0 picks a free one)"),
    Flag.optional
  ),
  host: Flag.String("host").pipe(
    Flag.withMetavar("HOST"),
    Flag.withDescription("The address to listen on (default 127.0.0.1: only this machine)"),
    Flag.withDefault("127.0.0.1")
  ),
  ...modelOptions
}

/** What the options parse to. */
export type Input = Command.Command.Config.Infer<typeof options>

/** The `ui` subcommand; the inspector itself is loaded when it runs. */
export const ui = Command.make("ui", options, (input) =>
  Effect.flatMap(
    Effect.promise(() => import("./inspector.js")),
    ({ serve }) => serve(input)
  )
).pipe(
  Command.withDescription(
    "Serve the run inspector for a session store (--session PATH or --database-url URL): sessions, runs, each run's timeline, live events, interrupt, and resume with --provider; prints its address and action token, runs until SIGINT or SIGTERM"
  )
)
