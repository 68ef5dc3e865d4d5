/**
 * Which failed statement means the Postgres session holding the store's lock ended (issue 13):
 * then the lock is lost for good; any other error leaves it held.
 */
import { describe, expect, it } from "@effect/vitest"
import { sessionEnded } from "../src/internal/owner.js"

const pgError = (code: string) => Object.assign(new Error("server error"), { code })

describe("Owner.sessionEnded", () => {
  it("the server ended the session (57P: pg_terminate_backend, shutdown, idle timeout) or the connection broke (08)", () => {
    expect(sessionEnded(pgError("57P01"))).toBe(true)
    expect(sessionEnded(pgError("57P05"))).toBe(true)
    expect(sessionEnded(pgError("08006"))).toBe(true)
  })

  it("the client's own error, without a SQLSTATE (a closed socket, an unusable client)", () => {
    expect(sessionEnded(new Error("Connection terminated unexpectedly"))).toBe(true)
    expect(sessionEnded(undefined)).toBe(true)
  })

  it("a statement's own error leaves the session and its lock alive", () => {
    expect(sessionEnded(pgError("23505"))).toBe(false)
    expect(sessionEnded(pgError("42601"))).toBe(false)
    // A cancelled statement (statement_timeout, pg_cancel_backend): the session goes on.
    expect(sessionEnded(pgError("57014"))).toBe(false)
  })
})
