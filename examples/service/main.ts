/**
 * The example service's entry: `service migrate` sets up the database once,
 * before the first runner starts; `service start` starts one runner (its HTTP
 * API and its cluster runner). See README.md.
 *
 *   node --import tsx examples/service/main.ts migrate --database-url URL
 *   node --import tsx examples/service/main.ts start --port 8081 --runner-port 9081 --database-url URL
 *
 * The model: with `ANTHROPIC_API_KEY` set, Anthropic's API (`ANTHROPIC_BASE_URL`
 * overrides its URL, `--model` names the model); else the Anthropic-compatible
 * server at `--provider-url` (such as `npx -y pnpm@12.4.2 fake-provider`);
 * else a fake provider this process starts on a free port of 127.0.0.1,
 * answering every call after `--model-latency-ms`.
 *
 * The run inspector is at `/inspector` of the HTTP API; its actions (resume,
 * interrupt) need the token in `INSPECTOR_TOKEN`, else a new one printed at
 * start.
 */
import { ActionToken, Secrets } from "@agent-kernel/inspector"
import { Settings } from "@agent-kernel/kernel"
import type { ModelProvider } from "@agent-kernel/kernel"
import { Anthropic, type Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Service from "./Service.js"

const databaseUrl = Flag.Redacted("database-url").pipe(
  Flag.withFallbackConfig(Config.Redacted("DATABASE_URL")),
  Flag.withDescription("The Postgres every runner shares. Default: DATABASE_URL.")
)

const migrate = Command.make("migrate", { databaseUrl }, (options) =>
  Effect.andThen(Service.migrate(options), Console.log("the database is set up"))
).pipe(Command.withDescription("Sets up the database once, before the first runner starts."))

const runnerOptions = {
  databaseUrl,
  port: Flag.Int("port").pipe(Flag.withDescription("The HTTP API's port.")),
  host: Flag.String("host").pipe(Flag.withDefault("127.0.0.1"), Flag.withDescription("The HTTP API's interface.")),
  runnerPort: Flag.Int("runner-port").pipe(Flag.withDescription("The port other runners reach this one at.")),
  runnerHost: Flag.String("runner-host").pipe(
    Flag.withDefault("127.0.0.1"),
    Flag.withDescription("The address other runners reach this one at.")
  ),
  model: Flag.String("model").pipe(
    Flag.optional,
    Flag.withDescription("Default: fake-model, or claude-sonnet-4-5 with ANTHROPIC_API_KEY.")
  ),
  providerUrl: Flag.String("provider-url").pipe(
    Flag.optional,
    Flag.withDescription("An Anthropic-compatible server (without /v1) to use instead of a fake of this process.")
  ),
  shardLockExpirationSeconds: Flag.Int("shard-lock-expiration").pipe(
    Flag.withDefault(30),
    Flag.withDescription("Seconds without a refresh after which a runner's shards move to the others.")
  ),
  drainTimeoutSeconds: Flag.Int("drain-timeout").pipe(
    Flag.withDefault(20),
    Flag.withDescription(
      "Seconds a stop (SIGTERM) may take: calls in flight finish, the shards move to the other runners, open answers follow their runs there."
    )
  ),
  modelLatencyMs: Flag.Int("model-latency-ms").pipe(
    Flag.withDefault(0),
    Flag.withDescription("The fake provider's wait before each answer.")
  )
}

/** The model of the runs, and its name. */
const provider = Effect.fnUntraced(function* (options: {
  readonly providerUrl: Option.Option<string>
  readonly modelLatencyMs: number
  readonly model: Option.Option<string>
}) {
  const real = yield* Config.option(Config.Redacted("ANTHROPIC_API_KEY"))
  if (Option.isSome(real)) {
    return [Anthropic.layer(), Option.getOrElse(options.model, () => "claude-sonnet-4-5")] as const
  }
  const baseUrl = Option.isSome(options.providerUrl)
    ? options.providerUrl.value
    : (yield* FakeProvider.make(
        FaultPlan.make([{ kind: "reply", text: "Hello from the fake provider.", delay_ms: options.modelLatencyMs }], {
          after: "repeat_last"
        })
      )).url
  const layer: Layer.Layer<ModelProvider.ModelProvider, Config.ConfigError, Transport.Transport> = Anthropic.layer({
    baseUrl,
    apiKey: Redacted.make("fake")
  })
  return [layer, Option.getOrElse(options.model, () => "fake-model")] as const
})

/** The inspector's action token: `INSPECTOR_TOKEN`, else a new one, and what to print of it. */
const inspectorToken = Effect.gen(function* () {
  const given = yield* Config.option(Config.Redacted("INSPECTOR_TOKEN"))
  if (Option.isSome(given)) return { token: given.value, shown: "from INSPECTOR_TOKEN" }
  const token = yield* ActionToken.make
  return { token, shown: Redacted.value(token) }
})

const start = Command.make("start", runnerOptions, (options) =>
  Effect.gen(function* () {
    const [model, name] = yield* provider(options)
    const settings = yield* Settings.decode({})
    const inspector = yield* inspectorToken
    yield* Layer.build(
      Service.layer({
        ...options,
        model: name,
        settings,
        shardLockExpiration: Duration.seconds(options.shardLockExpirationSeconds),
        drainTimeout: Duration.seconds(options.drainTimeoutSeconds),
        inspector: { token: inspector.token, secrets: Secrets.fromEnvironment(process.env) }
      }).pipe(Layer.provide(model), Layer.provide(NodeTransport.layer()))
    )
    yield* Console.log(
      `listening on http://${options.host}:${options.port} (runner ${options.runnerHost}:${options.runnerPort}, model ${name})`
    )
    yield* Console.log(
      `run inspector: http://${options.host}:${options.port}${Service.inspectorPrefix}/ (action token: ${inspector.shown})`
    )
    return yield* Effect.never
  }).pipe(Effect.scoped)
).pipe(Command.withDescription("Starts one runner of the service: its HTTP API and its cluster runner."))

const service = Command.make("service").pipe(Command.withSubcommands([migrate, start]))

Command.run(service, { version: "0.1.0" }).pipe(
  // The cluster logs every shard it takes and gives back: only warnings are the operator's business.
  Effect.provideService(References.MinimumLogLevel, "Warn"),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
