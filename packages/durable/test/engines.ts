/**
 * What the tests of stopped runs on every engine share: the three engines over fresh SQLite files,
 * `DurableSessions` with a `Bodies` map the test can see, a toolbox that records the calls it
 * invokes, and `AgentRun` registered with its bodies counted.
 */
import { AgentRun, DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, Settings, Toolbox } from "@agent-kernel/kernel"
import type { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The tests' settings: no jitter, so retry waits are exact on the TestClock. */
export const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

/**
 * A test file's harness; `prefix` names its temporary directories. `invoked` holds the ids of the
 * tool calls the toolbox ran (a test empties it first).
 */
export const make = (prefix: string) => {
  const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), prefix)), "agent.db")
  const invoked: Array<string> = []
  const tools: Toolbox.Service = {
    definitions: Effect.succeed([]),
    invoke: (call) =>
      Effect.sync(() => {
        invoked.push(call.id)
        return Content.toolResult(call.id, "wrote")
      })
  }
  /** DurableSessions with a `Bodies` map the test can see (and the workflow's registration, `AgentRun.layer`). */
  const sessionsWith = (
    bodies: Map<string, AgentRun.Body>,
    engine: Layer.Layer<Engine.Engine, Engine.StoreError>,
    model: ScriptedModel.ScriptedModel,
    registration: typeof AgentRun.layer = AgentRun.layer
  ) =>
    Layer.effect(DurableSessions.DurableSessions, DurableSessions.make).pipe(
      Layer.provideMerge(registration),
      Layer.provide(Layer.succeed(AgentRun.RunConfig, { model: "m", settings })),
      Layer.provide(Layer.succeed(AgentRun.Bodies, bodies)),
      Layer.provideMerge(engine),
      Layer.provide(model.layer),
      Layer.provide(Toolbox.layer(tools))
    )
  const engines = [
    { name: "light engine", engine: () => Engine.layerSqlite(file()) },
    { name: "memory engine", engine: () => Engine.layerMemory },
    { name: "cluster engine (SQLite)", engine: () => Engine.layerClusterSqlite(file()) }
  ] as const
  return { file, invoked, sessionsWith, engines }
}

/**
 * `AgentRun` registered with its bodies counted (`started`). A body started more than `limit` times dies at
 * once instead of running (a defect every engine records as the execution's result), so an engine that starts
 * a body again and again fails the test's count fast instead of spinning until the heap is gone.
 */
export const countedBodies = (limit: number) => {
  const started = { count: 0 }
  const registration: typeof AgentRun.layer = AgentRun.AgentRun.toLayer((payload, executionId) =>
    Effect.suspend(() =>
      ++started.count > limit
        ? Effect.dieMessage(`a body started more than ${limit} times`)
        : AgentRun.body(payload, executionId)
    )
  )
  return { started, registration }
}
