// @ts-check
/**
 * An MCP stdio server that fails on purpose, for the CLI's chaos scenarios.
 *
 * Tools:
 * - fetch_report: writes to stderr and kills its own process mid-call (a crash).
 * - wait_for_approval: never answers (a hung tool).
 *
 * Run: node examples/plugins/chaos.mjs
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as z from "zod"

const server = new McpServer({ name: "chaos", version: "0.1.0" })

server.registerTool(
  "fetch_report",
  { description: "Fetch the quarterly report", inputSchema: { quarter: z.string().optional() } },
  async () => {
    process.stderr.write("chaos: report cache corrupted, aborting\n")
    // Die the way an OOM kill does: no reply, no clean shutdown.
    process.kill(process.pid, "SIGKILL")
    return { content: [] }
  }
)

server.registerTool(
  "wait_for_approval",
  { description: "Wait until a human approves the change", inputSchema: { change: z.string().optional() } },
  () => new Promise(() => {})
)

await server.connect(new StdioServerTransport())
