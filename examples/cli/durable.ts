/**
 * The CLI's durable sessions, imported only by `--session`, `agent sessions` and a resume from
 * `agent ui`: the store and its engine are then loaded only by a command that keeps a session, so
 * every other command starts without them.
 */
import { type AgentRun, DurableSessions, type Engine } from "@agent-kernel/durable"
import { EventBus, ModelProvider, Toolbox } from "@agent-kernel/kernel"
import * as Layer from "effect/Layer"

export { DurableSessions, Engine } from "@agent-kernel/durable"

/** What a durable session's runs call and tell: the model, the event bus and the tools. */
export interface RunServices {
  readonly provider: ModelProvider.Service
  readonly bus: EventBus.Service
  readonly toolbox: Toolbox.Service
}

/**
 * The durable sessions of the store `engine` opens (the owner's lock with it), their runs made as
 * `config` says with `services`: what `agent --session PATH` runs on, and what `agent ui` resumes
 * a run with.
 */
export const sessionsLayer = <E>(
  engine: Layer.Layer<Engine.Engine, E>,
  config: AgentRun.Config,
  services: RunServices
): Layer.Layer<DurableSessions.DurableSessions | Engine.Engine, E> =>
  DurableSessions.layer(config).pipe(
    Layer.provideMerge(engine),
    Layer.provide(Layer.succeed(ModelProvider.ModelProvider, services.provider)),
    Layer.provide(Layer.succeed(EventBus.EventBus, services.bus)),
    Layer.provide(Layer.succeed(Toolbox.Toolbox, services.toolbox))
  )
