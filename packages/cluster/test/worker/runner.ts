/**
 * One runner process of the multi-runner tests: durable sessions on a
 * `Runner` over the Postgres at `DATABASE_URL`, listening on `PORT`, with the
 * fake provider at `PROVIDER_URL` as the model. It prints `ready` once it has
 * joined the cluster, then reads commands on stdin (see `../workers.ts`):
 *
 * - `go`: runs the sessions named in `SESSIONS` (comma-separated ids; each
 *   gets the input `session <id>`, so the fake provider's records tell whose
 *   request each was), and prints `report {statuses, retries}` once all have
 *   ended (`errors`: the error each failed run ended with). It keeps serving its shards until it is stopped.
 * - `stats`: prints `stats {attempts, inFlight, retried, releases}`: the model attempts
 *   this process sent (it runs the sessions whose shards it holds, whoever
 *   submitted them), those still waiting for their answer, the retries
 *   its runs scheduled by the category of the error retried (a 429 is
 *   `rate_limited`; an attempt that used up its time is `timeout`), and the
 *   instants at which the limiter let its requests go (`../releases.ts`).
 *
 * The report also names the slowest of its sessions and how long its run
 * took from `go`: a session that ends far later than the others is the one
 * to look into.
 *
 * Optional:
 * - `LIMITER_KEY` and `RATE`: the model goes through the provider-wide
 *   limiter (`RATE` requests a second, burst 1) and retry quota kept in the
 *   same Postgres (table `STATE_TABLE`); `LIMITER=off` leaves the limiter out
 *   (to see the test's assertion fail without it).
 * - `COUNTER_FILE`: two MCP counter fixtures (examples/plugins/counter.mjs)
 *   run as this runner's plugin processes, both recording into that file and
 *   pausing `COUNTER_DELAY_MS`: `count` (a write) and `recount`, declared
 *   idempotent.
 * - `SETTINGS`: the session settings as JSON.
 * - `DRAIN_TIMEOUT_SECONDS`: the runner's `drainTimeout` (default 20).
 * - `SHARD_LOCK_EXPIRATION_SECONDS`: the runner's `shardLockExpiration`
 *   (default the `Runner`'s, 30 s): how long a killed runner's shards wait
 *   before the others take them.
 *
 * SIGTERM stops it as an orchestrator would: its layers close, and the
 * runner drains (`Runner.drain`) before it exits.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { EventBus, ModelProvider, RetryBudget, type RetryQuota, Settings, Toolbox } from "@agent-kernel/kernel"
import { McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import * as Readline from "node:readline"
import * as ProviderLimiter from "../../src/ProviderLimiter.js"
import * as Runner from "../../src/Runner.js"
import * as SharedRetryQuota from "../../src/SharedRetryQuota.js"
import * as StateStore from "../../src/StateStore.js"
import * as Releases from "../releases.js"

const root = Path.join(import.meta.dirname, "..", "..", "..", "..")

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}
const optional = (name: string): string | undefined => process.env[name]
/** A number of seconds from the environment, if set. */
const seconds = (value: string | undefined): Duration.Duration | undefined =>
  value === undefined ? undefined : Duration.seconds(Number(value))

const sessions = env("SESSIONS")
  .split(",")
  .filter((id) => id.length > 0)

/** The model attempts this process sent, those not answered yet, and the retries by the category retried. */
interface Counts {
  readonly attempts: number
  readonly inFlight: number
  readonly retried: Readonly<Record<string, number>>
}

/** The provider, counting its attempts into `counts`. */
const counted = (provider: ModelProvider.Service, counts: Ref.Ref<Counts>): ModelProvider.Service => {
  const begin = Ref.update(counts, (c) => ({ ...c, attempts: c.attempts + 1, inFlight: c.inFlight + 1 }))
  const end = Ref.update(counts, (c) => ({ ...c, inFlight: c.inFlight - 1 }))
  const stream = (request: ModelProvider.ModelRequest) =>
    Stream.ensuring(Stream.unwrap(Effect.as(begin, provider.stream(request))), end)
  const generate = provider.generate
  if (generate === undefined) return ModelProvider.make(provider.name, stream)
  return {
    name: provider.name,
    stream,
    generate: (request) => Effect.ensuring(Effect.andThen(begin, generate(request)), end)
  }
}

const database = PgClient.layer({ url: Redacted.make(env("DATABASE_URL")), maxConnections: 6 })

const anthropic = Anthropic.layer({ baseUrl: env("PROVIDER_URL"), apiKey: Redacted.make("test"), stream: false }).pipe(
  Layer.provide(NodeTransport.layer()),
  Layer.orDie
)

/** The provider, behind the shared limiter when the test asks for it. */
const limited = (): Layer.Layer<ModelProvider.ModelProvider, never, StateStore.StateStore> => {
  const key = optional("LIMITER_KEY")
  if (key === undefined || optional("LIMITER") === "off") return anthropic
  const limiter = ProviderLimiter.layer({ key, requests: Releases.workersLimit(Number(env("RATE"))) })
  return ProviderLimiter.provider.pipe(Layer.provide(anthropic), Layer.provide(limiter))
}

/** The shared retry quota when the test asks for the limiter, else the kernel's default (unlimited). */
const quota = (): Layer.Layer<never> | Layer.Layer<RetryQuota.RetryQuota, never, StateStore.StateStore> => {
  const key = optional("LIMITER_KEY")
  if (key === undefined) return Layer.empty
  return SharedRetryQuota.layer({
    key,
    budget: RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 })
  })
}

const counter = (file: string, delay: string, tool: string): McpStdio.Config => ({
  name: tool,
  command: process.execPath,
  args: [Path.join(root, "examples", "plugins", "counter.mjs"), file, delay, tool],
  cwd: root
})

/** The counter fixtures as this runner's toolbox, when the test asks for them. */
const tools = (): Layer.Layer<never> | Layer.Layer<Toolbox.Toolbox> => {
  const file = optional("COUNTER_FILE")
  if (file === undefined) return Layer.empty
  const delay = optional("COUNTER_DELAY_MS") ?? "500"
  return Layer.effect(
    Toolbox.Toolbox,
    Effect.flatMap(
      Effect.all([McpStdio.make(counter(file, delay, "count")), McpStdio.make(counter(file, delay, "recount"))]),
      (providers) => PluginToolbox.make({ providers: providers.map(Effect.succeed) })
    )
  ).pipe(Layer.provide(NodeServices.layer))
}

/** The lines of stdin; it ends when stdin closes. */
const commands = Stream.callback<string>((queue) =>
  Effect.sync(() => {
    const lines = Readline.createInterface({ input: process.stdin })
    lines.on("line", (line) => Queue.offerUnsafe(queue, line.trim()))
    lines.on("close", () => Queue.endUnsafe(queue))
  })
)

const print = (name: string, value: unknown) =>
  Effect.sync(() => process.stdout.write(`${name} ${JSON.stringify(value)}\n`))

const program = Effect.gen(function* () {
  const counts = yield* Ref.make<Counts>({ attempts: 0, inFlight: 0, retried: {} })
  const releases: Array<number> = []
  // The retries the runs of this process schedule (replayed steps are not published again).
  const retries = EventBus.layer([
    {
      onEvent: (event) =>
        event.type === "retry_scheduled"
          ? Ref.update(counts, (c) => ({
              ...c,
              retried: { ...c.retried, [event.category]: (c.retried[event.category] ?? 0) + 1 }
            }))
          : Effect.void
    }
  ])
  const settings = yield* Settings.decode(JSON.parse(optional("SETTINGS") ?? '{"jitter":"none"}'))
  const model = Layer.effect(
    ModelProvider.ModelProvider,
    Effect.map(ModelProvider.ModelProvider, (provider) => counted(provider, counts))
  ).pipe(Layer.provide(limited()))
  const live = DurableSessions.layer({ model: "fake-model", settings, idempotentTools: ["recount"] }).pipe(
    Layer.provide(tools()),
    Layer.provide(retries),
    Layer.provide(quota()),
    Layer.provideMerge(
      Runner.layer({
        host: "127.0.0.1",
        port: Number(env("PORT")),
        drainTimeout: Duration.seconds(Number(optional("DRAIN_TIMEOUT_SECONDS") ?? "20")),
        shardLockExpiration: seconds(optional("SHARD_LOCK_EXPIRATION_SECONDS"))
      })
    ),
    Layer.provide(model),
    Layer.provide(
      Releases.recording(releases).pipe(Layer.provide(StateStore.layerPostgres({ table: optional("STATE_TABLE") })))
    ),
    Layer.provideMerge(database)
  )
  yield* Effect.gen(function* () {
    const durable = yield* DurableSessions.DurableSessions
    const runAll = Effect.flatMap(
      Effect.forEach(
        sessions,
        (id) =>
          Effect.map(Effect.timed(durable.run(id, `session ${id}`)), ([took, outcome]) => ({ id, took, outcome })),
        { concurrency: "unbounded" }
      ),
      (runs) => {
        const slowest = runs.reduce<(typeof runs)[number] | undefined>(
          (worst, run) => (worst === undefined || Duration.isGreaterThan(run.took, worst.took) ? run : worst),
          undefined
        )
        return print("report", {
          statuses: runs.map(({ outcome }) => outcome.status),
          retries: runs.map(({ outcome }) => outcome.retries.session_total),
          errors: runs.flatMap(({ outcome }) =>
            outcome.error === undefined ? [] : [`${outcome.status}: ${outcome.error.message}`]
          ),
          slowest:
            slowest === undefined
              ? null
              : {
                  id: slowest.id,
                  ms: Duration.toMillis(slowest.took),
                  retries: slowest.outcome.retries.session_total
                }
        })
      }
    )
    yield* Effect.sync(() => process.stdout.write("ready\n"))
    yield* Stream.runForEach(commands, (command) =>
      command === "go"
        ? Effect.asVoid(Effect.forkScoped(runAll))
        : command === "stats"
          ? Effect.flatMap(Ref.get(counts), (c) => print("stats", { ...c, releases }))
          : Effect.void
    )
    return yield* Effect.never
  }).pipe(Effect.provide(live))
}).pipe(Effect.scoped)

// SIGTERM interrupts the program: its layers close, the runner's drain first.
NodeRuntime.runMain(program)
