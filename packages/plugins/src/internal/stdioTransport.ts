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
 * `feed` never throws, whatever the bytes: a bad line (not JSON-RPC, over
 * the size limit, or one whose handling threw) is counted in `badLines` and
 * described in `lastBadLine`, and the next line is read as usual. One
 * hostile line must not cost the reader.
 *
 * @internal
 */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  badLines = 0
  lastBadLine = ""
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

  /** Feeds a chunk of the child's stdout. Never throws. */
  feed(chunk: Uint8Array): void {
    let start = 0
    while (start < chunk.length && !this.closed) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      this.append(chunk.subarray(start, end))
      if (newline === -1) return
      try {
        this.endLine()
      } catch (error) {
        // The SDK's handler, a decoder on a pathological line: whatever threw, it was this line's problem.
        this.bad(`a line on stdout could not be handled (${describe(error)})`)
      }
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
    this.bad(`a line that is not JSON-RPC: ${sample(text)}`)
  }

  private bad(description: string): void {
    this.badLines += 1
    this.lastBadLine = description
  }

  private oversize(head: Buffer, tail: Buffer, size: number): void {
    const reason = `a message of ${size} bytes exceeded the limit of ${this.options.maxMessageBytes} bytes and was discarded`
    this.bad(`${reason}: ${sample(head.toString("utf8"))}`)
    // Fail the request it answered rather than let it wait for a timeout.
    const id = findId(head.toString("utf8"), tail.toString("utf8"))
    if (id !== undefined) {
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: reason } })
    }
  }
}

const sample = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}...` : text)

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error)

const lastBytes = (buffer: Buffer, n: number): Buffer =>
  buffer.length <= n ? buffer : buffer.subarray(buffer.length - n)

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
// The id is the first key (most servers) or the last (the SDK's own servers put `result` first).
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + ID)
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*` + ID + String.raw`\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

/**
 * The id of an oversize message, from its first or last bytes. The match is
 * only a guess at JSON (`"\\q"` matches the pattern and is no JSON string), so
 * it is parsed defensively: no id is better than a thrown reader.
 * @internal
 */
export const findId = (head: string, tail: string): string | number | undefined =>
  parseId(LEADING_ID.exec(head)?.[1]) ?? parseId(TRAILING_ID.exec(tail)?.[1])

const parseId = (raw: string | undefined): string | number | undefined => {
  if (raw === undefined) return undefined
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value)) ? value : undefined
  } catch {
    return undefined
  }
}
