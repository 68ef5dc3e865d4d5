import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"

/** @internal */
export interface Options {
  /** Queues bytes for the child's stdin. */
  readonly write: (bytes: Uint8Array) => void
  /** A line longer than this is discarded (and, if it answers a request, that request fails). */
  readonly maxMessageBytes: number
}

const WINDOW = 512

/**
 * An MCP transport over a child's stdin and stdout: newline-delimited
 * JSON-RPC. Unlike the SDK's `StdioClientTransport` it owns no process: the
 * owner feeds it stdout chunks and tells it when the process is gone, which
 * is how a crash reaches in-flight calls without waiting for pipes to close.
 *
 * Junk lines (anything that does not decode as JSON-RPC) are counted and
 * reported, never fatal.
 *
 * @internal
 */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  junkLines = 0
  lastJunk = ""
  protocolVersion: string | undefined
  private closed = false
  private chunks: Array<Uint8Array> = []
  private size = 0
  // While discarding an oversize line: its first and last bytes, to find its id.
  private discarding: { head: Buffer; tail: Buffer; size: number } | undefined

  private readonly options: Options

  constructor(options: Options) {
    this.options = options
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.protocolVersion = version
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error("transport closed: the plugin process is gone")
    this.options.write(Buffer.from(`${JSON.stringify(message)}\n`, "utf8"))
  }

  async close(): Promise<void> {
    this.shutdown()
  }

  /** Marks the transport closed; the SDK then fails every pending request. */
  shutdown(): void {
    if (this.closed) return
    this.closed = true
    this.chunks = []
    this.size = 0
    this.onclose?.()
  }

  /** Feeds a chunk of the child's stdout. */
  feed(chunk: Uint8Array): void {
    let start = 0
    while (start < chunk.length && !this.closed) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      this.append(chunk.subarray(start, end))
      if (newline === -1) return
      this.endLine()
      start = newline + 1
    }
  }

  private append(piece: Uint8Array): void {
    if (piece.length === 0) return
    if (this.discarding !== undefined) {
      this.discarding.size += piece.length
      this.discarding.tail = lastBytes(Buffer.concat([this.discarding.tail, piece]), WINDOW)
      return
    }
    // Chunks are joined once per line: concatenating on every chunk is quadratic on a 20 MB line.
    this.chunks.push(piece)
    this.size += piece.length
    if (this.size > this.options.maxMessageBytes) {
      const all = Buffer.concat(this.chunks)
      this.discarding = { head: all.subarray(0, WINDOW), tail: lastBytes(all, WINDOW), size: all.length }
      this.chunks = []
      this.size = 0
    }
  }

  private endLine(): void {
    if (this.discarding !== undefined) {
      const { head, size, tail } = this.discarding
      this.discarding = undefined
      this.oversize(head, tail, size)
      return
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    this.chunks = []
    this.size = 0
    const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8").replace(/\r$/, "")
    if (text.trim() === "") return
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      this.junk(text)
      return
    }
    const decoded = JSONRPCMessageSchema.safeParse(json)
    if (decoded.success) this.onmessage?.(decoded.data)
    else this.junk(text)
  }

  private junk(text: string): void {
    this.junkLines += 1
    const sample = text.length > 200 ? `${text.slice(0, 200)}...` : text
    this.lastJunk = sample
    this.onerror?.(new Error(`non-JSON-RPC line on stdout (${this.junkLines} so far): ${sample}`))
  }

  private oversize(head: Buffer, tail: Buffer, size: number): void {
    const reason = `a message of ${size} bytes exceeded the limit of ${this.options.maxMessageBytes} bytes and was discarded`
    this.onerror?.(new Error(reason))
    // Fail the request it answered rather than let it wait for a timeout.
    const id = findId(head.toString("utf8"), tail.toString("utf8"))
    if (id !== undefined) {
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: reason } })
    }
  }
}

const lastBytes = (buffer: Buffer, n: number): Buffer =>
  buffer.length <= n ? buffer : buffer.subarray(buffer.length - n)

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
// The id is the first key (most servers) or the last (the SDK's own servers put `result` first).
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + ID)
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*` + ID + String.raw`\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

const findId = (head: string, tail: string): string | number | undefined => {
  const raw = LEADING_ID.exec(head)?.[1] ?? TRAILING_ID.exec(tail)?.[1]
  if (raw === undefined) return undefined
  const value: unknown = JSON.parse(raw)
  return typeof value === "string" || typeof value === "number" ? value : undefined
}
