import { DurableAgent } from "@agent-kernel/durable"
import { Agent } from "@agent-kernel/kernel"
import { InProcessTools } from "@agent-kernel/plugins"
import { Anthropic } from "@agent-kernel/providers"
import { Console, Effect, Schema } from "effect"

const book = InProcessTools.tool({
  name: "book_table",
  description: "Books a table for tonight",
  parameters: Schema.Struct({ restaurant: Schema.String }),
  handler: ({ restaurant }) => Effect.as(Console.log(`[booked ${restaurant}]`), `Booked ${restaurant} for 8 pm`)
})
const tools = InProcessTools.layer([book])
const agent = DurableAgent.layer("agent.db", { model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), tools })

const run = Agent.run("Book me a table at Chez Paul", { onText: (text) => process.stdout.write(text) })
Effect.runPromise(Effect.provide(run, agent)).then((outcome) => console.log(`\n${outcome.status}`), console.error)
