/**
 * Which failed statement means the Postgres session holding the store's lock ended:
 * then the lock is lost for good; any other error leaves it held. The errors are built as
 * @effect/sql-pg 4.0.5 builds them: a report of the server is a `SqlError` whose reason (classified
 * by its SQLSTATE) has the report's fields on its cause; an error of the client is a `SqlError`
 * whose reason's cause is the client's own error.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlError from "effect/sql/SqlError"
import { sessionEnded } from "../src/internal/owner.js"

/** A report of the server, with the reason @effect/sql-pg gives its SQLSTATE. */
const serverReport = (severity: string, code: string) => {
  const props = { cause: Object.assign(new Error("server error"), { severity, code }), operation: "query" }
  const reason = code.startsWith("08")
    ? new SqlError.ConnectionError(props)
    : code === "57014"
      ? new SqlError.StatementTimeoutError(props)
      : code === "23505"
        ? new SqlError.UniqueViolation({ ...props, constraint: "unknown" })
        : code.startsWith("42")
          ? new SqlError.SqlSyntaxError(props)
          : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}

/** An error of the client: its connection failed or closed under the statement (`connectionQueryError`). */
const clientGone = (cause: Error) =>
  new SqlError.SqlError({ reason: new SqlError.ConnectionError({ cause, message: cause.message, operation: "query" }) })

describe("Owner.sessionEnded", () => {
  it("the server ended the session: FATAL or PANIC (pg_terminate_backend, shutdown, idle timeout, a broken protocol)", () => {
    expect(sessionEnded(serverReport("FATAL", "57P01"))).toBe(true)
    expect(sessionEnded(serverReport("FATAL", "57P05"))).toBe(true)
    expect(sessionEnded(serverReport("FATAL", "08P01"))).toBe(true)
    expect(sessionEnded(serverReport("PANIC", "XX000"))).toBe(true)
    // 57P is always fatal, whatever language the server reports its severity in.
    expect(sessionEnded(serverReport("SCHWERWIEGEND", "57P01"))).toBe(true)
  })

  it("the client's connection is gone (its socket closed, or the client refuses statements)", () => {
    expect(sessionEnded(clientGone(new Error("Connection closed")))).toBe(true)
    expect(sessionEnded(clientGone(new Error("Connection is closed")))).toBe(true)
    expect(sessionEnded(clientGone(new Error("Failed to write query")))).toBe(true)
  })

  it("the socket died under the statement in flight (a reset, a keepalive timeout, a write to a closed socket)", () => {
    // What the client gives the active statement then: the socket's own error, with a system code and no severity.
    const socketError = (syscall: string, code: string) =>
      Object.assign(new Error(`${syscall} ${code}`), { code, errno: -104, syscall })
    expect(sessionEnded(clientGone(socketError("read", "ECONNRESET")))).toBe(true)
    expect(sessionEnded(clientGone(socketError("read", "ETIMEDOUT")))).toBe(true)
    expect(sessionEnded(clientGone(socketError("write", "EPIPE")))).toBe(true)
  })

  it("a statement's own error at ERROR leaves the session and its lock alive, a class-08 code included", () => {
    expect(sessionEnded(serverReport("ERROR", "23505"))).toBe(false)
    expect(sessionEnded(serverReport("ERROR", "42601"))).toBe(false)
    // More than 65,535 parameters: the server refuses the bind message, and the session goes on.
    expect(sessionEnded(serverReport("ERROR", "08P01"))).toBe(false)
    // A cancelled statement (statement_timeout, pg_cancel_backend): the session goes on.
    expect(sessionEnded(serverReport("ERROR", "57014"))).toBe(false)
  })

  it("an error that says nothing of the connection leaves the lock held (a dead session fails its next statement anyway)", () => {
    const unknown = (cause: unknown) =>
      new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, operation: "query" }) })
    expect(sessionEnded(unknown(undefined))).toBe(false)
    expect(sessionEnded(unknown(new Error("Failed to execute statement")))).toBe(false)
  })
})
