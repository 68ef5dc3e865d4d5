// @ts-check
/**
 * A small MCP stdio server over the official SDK: read-only access to one
 * workspace folder (WORKSPACE_ROOT, default the working directory).
 *
 * Tools: list_files {path?}, read_file {path, max_bytes?}, search {pattern, path?}.
 * Paths are relative to the root and may not leave it.
 *
 * Run: node examples/plugins/workspace.mjs
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as z from "zod"

const root = path.resolve(process.env["WORKSPACE_ROOT"] ?? process.cwd())
const skipped = new Set(["node_modules", ".git"])

/** Resolves a path inside the root, or throws: a tool error the model can read and correct. */
/** @param {string | undefined} relative */
const inside = (relative) => {
  const resolved = path.resolve(root, relative ?? ".")
  if (resolved !== root && !resolved.startsWith(root + path.sep)) {
    throw new Error(`"${relative}" is outside the workspace; use a path relative to it`)
  }
  return resolved
}

/** @param {string} value */
const text = (value) => ({ content: [{ type: /** @type {const} */ ("text"), text: value }] })

const server = new McpServer({ name: "workspace", version: "0.1.0" })

server.registerTool(
  "list_files",
  {
    description: "List the files and folders of a workspace folder (default: its root)",
    inputSchema: { path: z.string().optional().describe("A folder relative to the workspace root") }
  },
  async ({ path: folder }) => {
    const entries = await fs.readdir(inside(folder), { withFileTypes: true })
    const lines = entries
      .filter((entry) => !skipped.has(entry.name))
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort()
    return text(lines.join("\n") || "(empty)")
  }
)

server.registerTool(
  "read_file",
  {
    description: "Read a text file of the workspace",
    inputSchema: {
      path: z.string().describe("A file relative to the workspace root"),
      max_bytes: z.number().int().positive().optional().describe("Read at most this many bytes (default 20000)")
    }
  },
  async ({ path: file, max_bytes }) => {
    const limit = max_bytes ?? 20_000
    const handle = await fs.open(inside(file), "r")
    try {
      const buffer = Buffer.alloc(limit)
      const { bytesRead } = await handle.read(buffer, 0, limit, 0)
      const { size } = await handle.stat()
      const body = buffer.subarray(0, bytesRead).toString("utf8")
      return text(size > bytesRead ? `${body}\n[... ${size - bytesRead} more bytes ...]` : body)
    } finally {
      await handle.close()
    }
  }
)

server.registerTool(
  "search",
  {
    description: "Find the lines of the workspace's files that contain a text (case-insensitive)",
    inputSchema: { pattern: z.string().min(1), path: z.string().optional() }
  },
  async ({ pattern, path: folder }) => {
    const needle = pattern.toLowerCase()
    /** @type {Array<string>} */
    const hits = []
    /** @param {string} dir @returns {Promise<void>} */
    const walk = async (dir) => {
      for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
        if (skipped.has(entry.name) || hits.length >= 50) continue
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) await walk(full)
        else if (entry.isFile()) {
          const lines = (await fs.readFile(full, "utf8")).split("\n")
          lines.forEach((line, i) => {
            if (hits.length < 50 && line.toLowerCase().includes(needle))
              hits.push(`${path.relative(root, full)}:${i + 1}: ${line.trim().slice(0, 200)}`)
          })
        }
      }
    }
    await walk(inside(folder))
    return text(hits.join("\n") || "no match")
  }
)

await server.connect(new StdioServerTransport())
