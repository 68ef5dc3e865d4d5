import { Gate, InProcessTools, McpStdio, PluginToolbox } from "@agent-kernel/plugins"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const math = InProcessTools.make("math", [
  InProcessTools.tool({
    name: "add",
    description: "Adds two numbers",
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
    handler: ({ a, b }) => Effect.succeed(a + b)
  })
])

// Provide ToolsLive where the Session is made: it takes `Toolbox` from context.
export const ToolsLive = PluginToolbox.layer({
  providers: [
    math,
    McpStdio.make({ name: "everything", command: "mcp-server-everything", inheritEnv: ["EVERYTHING_TOKEN"] })
  ],
  settings: { tool_timeout_ms: 30_000 }
}).pipe(
  Layer.provide(NodeServices.layer),
  Layer.provide(Gate.layerRules({ deny: [{ tool: "trigger-*", reason: "Not in this session." }] }))
)
