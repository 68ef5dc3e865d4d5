/**
 * Which failed statement means the Postgres session holding the store's lock ended (issue 13):
 * then the lock is lost for good; any other error leaves it held.
 */
import { describe, expect, it } from "@effect/vitest"
import { sessionEnded } from "../src/internal/owner.js"

/** A report of the server as pg's `DatabaseError` carries it. */
const pgError = (severity: string, code: string) => Object.assign(new Error("server error"), { severity, code })

describe("Owner.sessionEnded", () => {
  it("the server ended the session: FATAL or PANIC (pg_terminate_backend, shutdown, idle timeout, a broken protocol)", () => {
    expect(sessionEnded(pgError("FATAL", "57P01"))).toBe(true)
    expect(sessionEnded(pgError("FATAL", "57P05"))).toBe(true)
    expect(sessionEnded(pgError("FATAL", "08P01"))).toBe(true)
    expect(sessionEnded(pgError("PANIC", "XX000"))).toBe(true)
    // 57P is always fatal, whatever language the server reports its severity in.
    expect(sessionEnded(pgError("SCHWERWIEGEND", "57P01"))).toBe(true)
  })

  it("the client's connection is gone (its socket closed, or the client refuses statements)", () => {
    expect(sessionEnded(new Error("Connection terminated unexpectedly"))).toBe(true)
    expect(sessionEnded(new Error("Connection terminated"))).toBe(true)
    expect(sessionEnded(new Error("Client has encountered a connection error and is not queryable"))).toBe(true)
    expect(sessionEnded(new Error("Client was closed and is not queryable"))).toBe(true)
  })

  it("the socket died under the statement in flight (a reset, a keepalive timeout, a write to a closed socket)", () => {
    // What pg's client gives the active query then: the socket's own error, with a system code and no severity.
    const socketError = (syscall: string, code: string) =>
      Object.assign(new Error(`${syscall} ${code}`), { code, errno: -104, syscall })
    expect(sessionEnded(socketError("read", "ECONNRESET"))).toBe(true)
    expect(sessionEnded(socketError("read", "ETIMEDOUT"))).toBe(true)
    expect(sessionEnded(socketError("write", "EPIPE"))).toBe(true)
    // A code the client's socket never fails a statement with says nothing of the connection.
    expect(sessionEnded(socketError("open", "ENOENT"))).toBe(false)
  })

  it("a statement's own error at ERROR leaves the session and its lock alive, a class-08 code included", () => {
    expect(sessionEnded(pgError("ERROR", "23505"))).toBe(false)
    expect(sessionEnded(pgError("ERROR", "42601"))).toBe(false)
    // More than 65,535 parameters: the server refuses the bind message, and the session goes on.
    expect(sessionEnded(pgError("ERROR", "08P01"))).toBe(false)
    // A cancelled statement (statement_timeout, pg_cancel_backend): the session goes on.
    expect(sessionEnded(pgError("ERROR", "57014"))).toBe(false)
  })

  it("an error that says nothing of the connection leaves the lock held (a dead session fails its next statement anyway)", () => {
    expect(sessionEnded(undefined)).toBe(false)
    expect(sessionEnded(new Error("Failed to execute statement"))).toBe(false)
  })
})
