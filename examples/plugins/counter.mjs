// @ts-check
/**
 * An MCP stdio server for crash tests: one tool, `count {key}`, that records
 * each invocation in a file (the first argument) before and after a pause
 * (the second, in milliseconds, default 500), so a test can see which calls
 * were invoked, and how often, across processes that were killed. The third
 * argument renames the tool (default `count`), so that one agent can run two
 * counters, one of them declared idempotent. Arguments, not environment
 * variables: a plugin gets only an allowed few of those.
 *
 * Lines: `start KEY PID` when invoked, `end KEY PID` when it answers.
 *
 * Run: node examples/plugins/counter.mjs /tmp/counts 500 [TOOL_NAME]
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as fs from "node:fs"
import * as z from "zod"

const file = process.argv[2]
if (file === undefined || file === "") {
  process.stderr.write("usage: counter.mjs FILE [DELAY_MS] [TOOL_NAME]: FILE records the invocations\n")
  process.exit(2)
}
const delay = Number(process.argv[3] ?? "500")
const tool = process.argv[4] ?? "count"

const server = new McpServer({ name: "counter", version: "0.1.0" })

server.registerTool(
  tool,
  {
    description: "Count one invocation under a key (a write: not idempotent)",
    inputSchema: { key: z.string().describe("What to count") }
  },
  async ({ key }) => {
    // Synchronous appends: a line written is on disk before the process can be killed after it.
    fs.appendFileSync(file, `start ${key} ${process.pid}\n`)
    await new Promise((resolve) => setTimeout(resolve, delay))
    fs.appendFileSync(file, `end ${key} ${process.pid}\n`)
    return { content: [{ type: "text", text: `counted ${key}` }] }
  }
)

await server.connect(new StdioServerTransport())
