import { Agent } from "@agent-kernel/kernel"
import { InProcessTools } from "@agent-kernel/plugins"
import { Anthropic } from "@agent-kernel/providers"
import { Effect, Schema } from "effect"

const weather = InProcessTools.tool({
  name: "weather",
  description: "Today's weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed(`Sunny in ${city}, 21 °C`)
})
const tools = InProcessTools.layer([weather])
const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), tools })

const run = Agent.run("What is the weather in Paris?", { onText: (text) => process.stdout.write(text) })
Effect.runPromise(Effect.provide(run, agent)).then((outcome) => console.log(`\n${outcome.status}`), console.error)
