import { Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { Gate, InProcessTools, McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as path from "node:path"

const examples = path.resolve(import.meta.dirname, "..")

// An in-process tool: parameters are decoded with Schema; bad input becomes an error result the model can fix.
const calculator = InProcessTools.make("calculator", [
  InProcessTools.tool({
    name: "add",
    description: "Add two numbers",
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
    handler: ({ a, b }) => Effect.succeed(a + b)
  })
])

// An MCP stdio plugin: a real subprocess in its own process group, with a minimal environment.
const workspace = McpStdio.make({
  name: "workspace",
  command: process.execPath,
  args: [path.join(examples, "plugins/workspace.mjs")]
})

// The gate runs before every call; a denial is an error result that tells the model why, and counts for the breaker.
const gate = Gate.rules({
  deny: [{ tool: "read_file", arguments: { path: /\.env$/ }, reason: "secrets stay private" }]
})

export const run = Effect.gen(function* () {
  const settings = { ...Settings.defaults, tool_timeout_ms: 10_000, breaker_consecutive_failures: 3 }
  const toolbox = yield* PluginToolbox.make({ providers: [calculator, workspace], settings })
  const model = yield* ScriptedModel.make([
    ScriptedModel.toolCalls(
      { id: "t1", name: "add", input: { a: 2, b: 3 } },
      { id: "t2", name: "add", input: { a: "two" } },
      { id: "t3", name: "read_file", input: { path: ".env" } },
      { id: "t4", name: "list_files", input: {} }
    ),
    ScriptedModel.text("done")
  ])
  const session = yield* Session.make({ model: "any-model", settings }).pipe(
    Effect.provide(model.layer),
    Effect.provideService(Toolbox.Toolbox, toolbox)
  )
  return yield* session.run("Add 2 and 3, then look around")
}).pipe(Effect.provideService(Gate.Gate, gate), Effect.scoped, Effect.provide(NodeServices.layer))
