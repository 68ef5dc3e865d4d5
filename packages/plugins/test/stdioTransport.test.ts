import { describe, expect, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { decodeWaitStatus } from "../src/internal/procfs.js"
import { StdioTransport } from "../src/internal/stdioTransport.js"

const make = (maxMessageBytes = 1024) => {
  const written: Array<string> = []
  const messages: Array<JSONRPCMessage> = []
  const errors: Array<string> = []
  const transport = new StdioTransport({
    write: (bytes) => written.push(Buffer.from(bytes).toString("utf8")),
    maxMessageBytes
  })
  transport.onmessage = (message) => messages.push(message)
  transport.onerror = (error) => errors.push(error.message)
  return { transport, written, messages, errors }
}

const bytes = (text: string) => Buffer.from(text, "utf8")

describe("StdioTransport", () => {
  it("frames newline-delimited JSON-RPC across chunk boundaries, with CRLF", () => {
    const { transport, messages } = make()
    transport.feed(bytes('{"jsonrpc":"2.0","id":1,"res'))
    transport.feed(
      bytes(
        'ult":{}}\r\n{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n{"jsonrpc"'
      )
    )
    expect(messages).toHaveLength(2)
    transport.feed(bytes(':"2.0","id":2,"result":{"ok":"é"}}\n'))
    expect(messages[2]).toEqual({ jsonrpc: "2.0", id: 2, result: { ok: "é" } })
  })

  it("counts junk lines and reports them without closing", () => {
    const { transport, messages } = make()
    let closed = false
    transport.onclose = () => {
      closed = true
    }
    transport.feed(bytes('Server starting...\n{"not":"jsonrpc"}\n\n{"jsonrpc":"2.0","id":1,"result":{}}\n'))
    expect(transport.badLines).toBe(2)
    expect(transport.lastBadLine).toBe('a line that is not JSON-RPC: {"not":"jsonrpc"}')
    expect(messages).toHaveLength(1)
    expect(closed).toBe(false)
  })

  it("writes one line per message and refuses to write once shut down", async () => {
    const { transport, written } = make()
    let closes = 0
    transport.onclose = () => closes++
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" })
    expect(written).toEqual(['{"jsonrpc":"2.0","id":1,"method":"ping"}\n'])
    transport.shutdown()
    transport.shutdown()
    expect(closes).toBe(1)
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow("transport closed")
  })

  it("discards an oversize line and fails the request it answered, whichever end its id is at", () => {
    const { transport, messages } = make(100)
    const big = "x".repeat(500)
    transport.feed(bytes(`{"jsonrpc":"2.0","id":7,"result":{"text":"${big.slice(0, 250)}`))
    transport.feed(bytes(`${big.slice(250)}"}}\n`))
    transport.feed(bytes(`{"result":{"text":"${big}"},"jsonrpc":"2.0","id":"abc"}\n`))
    transport.feed(bytes(`{"jsonrpc":"2.0","id":8,"result":{}}\n`))
    expect(messages).toHaveLength(3)
    expect(messages[0]).toMatchObject({ id: 7, error: { code: -32603 } })
    expect(messages[1]).toMatchObject({
      id: "abc",
      error: { message: expect.stringContaining("exceeded the limit of 100 bytes") }
    })
    expect(messages[2]).toEqual({ jsonrpc: "2.0", id: 8, result: {} })
  })
})

describe("wait statuses read from /proc", () => {
  it("decode to an exit code or a signal name", () => {
    expect(decodeWaitStatus(7 << 8)).toEqual({ exitCode: 7, signal: null })
    expect(decodeWaitStatus(0)).toEqual({ exitCode: 0, signal: null })
    expect(decodeWaitStatus(9)).toEqual({ exitCode: null, signal: "SIGKILL" })
    expect(decodeWaitStatus(15 | 0x80)).toEqual({ exitCode: null, signal: "SIGTERM" })
  })
})
