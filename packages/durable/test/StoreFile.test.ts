/**
 * The embedded store's file: one owner whatever path names it (a symbolic or a hard link), whole on
 * disk after a clean close, never another program's database, and failures that say why in one line.
 * Real files and, where the item is about processes, real processes (tests/fixtures/storeProcess.ts);
 * waits are on what a process prints, bounded generously.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"

const root = path.resolve(import.meta.dirname, "../../..")
const fixture = path.join(import.meta.dirname, "fixtures", "storeProcess.ts")

const directory = () => fs.mkdtempSync(path.join(os.tmpdir(), "durable-store-file-"))

interface Child {
  readonly child: ChildProcess
  /** Resolves with the first line the process prints. */
  readonly line: Promise<string>
  readonly exited: Promise<number | null>
}

/** The fixture as a process of its own (node with tsx's loader). */
const storeProcess = (mode: "hold" | "run", file: string): Child => {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, mode, file], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk))
  const line = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk
      const newline = stdout.indexOf("\n")
      if (newline >= 0) resolve(stdout.slice(0, newline))
    })
    child.on("close", () => reject(new Error(`the process ended without a line; stderr:\n${stderr}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  return { child, line, exited }
}

/** A first line and exit, bounded by a generous ceiling of real time (a process start on a loaded machine). */
const within = <A>(promise: Promise<A>, what: string, ms = 60_000): Promise<A> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms).unref()
    )
  ])

/** Builds the layer in a scope of its own: the StoreError it fails with, if it does. */
const opening = <A>(layer: Layer.Layer<A, Engine.StoreError>) =>
  Effect.scoped(Effect.flip(Effect.asVoid(Layer.build(layer))))

const opened = <A>(layer: Layer.Layer<A, Engine.StoreError>) => Effect.scoped(Effect.asVoid(Layer.build(layer)))

const tablesOf = (file: string): ReadonlyArray<string> => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => String(row["name"]))
  } finally {
    db.close()
  }
}

describe("one owner per store, whatever path names it", () => {
  for (const link of ["symbolic", "hard"] as const) {
    it(`a second process through a ${link} link is refused as the store is in use, and the owner keeps it`, async () => {
      const dir = directory()
      const file = path.join(dir, "agent.db")
      const linked = path.join(dir, "link.db")
      await Effect.runPromise(opened(Engine.layerSqlite(file)))
      if (link === "symbolic") fs.symlinkSync("agent.db", linked)
      else fs.linkSync(file, linked)
      const owner = storeProcess("hold", file)
      try {
        expect(await within(owner.line, "the owner")).toBe("held")
        const second = storeProcess("hold", linked)
        expect(await within(second.line, "the second process")).toBe(
          `refused locked the session store ${linked} is in use by another process`
        )
        expect(await within(second.exited, "the second process's exit")).toBe(3)
        // In this process too: the link's own path does not get past the owner's locks.
        const refused = await Effect.runPromise(opening(Engine.layerSqliteStore(linked)))
        expect([refused.reason, refused.locked]).toEqual(["locked", true])
        // No second write-ahead log: nothing was opened through the link.
        expect(fs.existsSync(`${linked}-wal`)).toBe(false)
      } finally {
        owner.child.stdin!.end()
        await within(owner.exited, "the owner's exit")
      }
      // Once the owner is gone, the link opens the same store.
      await Effect.runPromise(opened(Engine.layerSqliteStore(linked)))
    })
  }

  it.effect("a store opened through a symbolic link keeps its write-ahead log and its lock beside the real file", () =>
    Effect.gen(function* () {
      const dir = directory()
      const file = path.join(dir, "agent.db")
      const linked = path.join(dir, "link.db")
      fs.symlinkSync("agent.db", linked)
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(Engine.layerSqlite(linked))
          expect([fs.existsSync(`${file}-wal`), fs.existsSync(`${linked}-wal`)]).toEqual([true, false])
          // Its lock too: every name of the file meets the same lock.
          expect([fs.existsSync(`${file}.lock`), fs.existsSync(`${linked}.lock`)]).toEqual([true, false])
        })
      )
    })
  )
})

describe("a store is whole on disk after a clean close", () => {
  it("a process that ran a session and exited leaves no write-ahead log: the file alone holds the session", async () => {
    const dir = directory()
    const file = path.join(dir, "agent.db")
    const process_ = storeProcess("run", file)
    expect(await within(process_.line, "the run")).toBe("ran completed")
    expect(await within(process_.exited, "the exit")).toBe(0)
    expect(fs.readdirSync(dir).filter((name) => name.startsWith("agent.db-"))).toEqual([])
    // A copy of the file alone is the whole store.
    const copy = path.join(directory(), "backup.db")
    fs.copyFileSync(file, copy)
    const listed = await Effect.runPromise(Effect.provide(DurableSessions.summaries, Engine.layerSqliteStore(copy)))
    expect(listed.map((session) => [session.id, session.status, session.messages])).toEqual([["s", "completed", 2]])
  })

  it.effect("reading a store that does not exist is an error naming it, and creates nothing", () =>
    Effect.gen(function* () {
      const dir = directory()
      const missing = path.join(dir, "missing.db")
      const error = yield* opening(Engine.layerSqliteStore(missing))
      expect([error.reason, error.message]).toEqual(["missing", `there is no session store at ${missing}`])
      expect(fs.readdirSync(dir)).toEqual([])
    })
  )
})

describe("a database that is not a session store is never changed", () => {
  const foreignFile = (setup: (db: DatabaseSync) => void) => {
    const file = path.join(directory(), "other.db")
    const db = new DatabaseSync(file)
    setup(db)
    db.close()
    return file
  }

  const cases = [
    {
      name: "another program's database",
      setup: (db: DatabaseSync) => db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"),
      why: "it holds the table notes"
    },
    {
      name: "a database with a table named as a store's but of other columns",
      setup: (db: DatabaseSync) => db.exec("CREATE TABLE agent_sessions (id TEXT PRIMARY KEY, name TEXT)"),
      why: "its table agent_sessions has no column state, status, run_index, pending, retries_used, updated_at"
    },
    {
      name: "a database another program marked as its own",
      setup: (db: DatabaseSync) => db.exec("PRAGMA application_id = 1234"),
      why: "it is another program's database, application_id 1234"
    }
  ]
  for (const { name, setup, why } of cases) {
    it.effect(`${name}: refused with a message naming the file, its tables untouched`, () =>
      Effect.gen(function* () {
        const file = foreignFile(setup)
        const before = tablesOf(file)
        for (const layer of [Engine.layerSqliteStore(file), Engine.layerSqlite(file)]) {
          const error = yield* opening(layer)
          expect([error.reason, error.message]).toEqual([
            "foreign",
            `${file} is not an agent-kernel session store (${why}): it is left as it is`
          ])
        }
        expect(tablesOf(file)).toEqual(before)
      })
    )
  }

  it.effect("an empty file, or a store made before stores were marked, is a store and is marked as one", () =>
    Effect.gen(function* () {
      const empty = path.join(directory(), "empty.db")
      fs.writeFileSync(empty, "")
      yield* opened(Engine.layerSqlite(empty))
      // A store of the same tables, unmarked (as every store was before), opens and is marked.
      const unmarked = foreignFile((db) => {
        const source = new DatabaseSync(empty, { readOnly: true })
        const statements = source
          .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name <> 'agent_events'")
          .all()
        source.close()
        for (const row of statements) db.exec(String(row["sql"]))
      })
      yield* opened(Engine.layerSqlite(unmarked))
      for (const file of [empty, unmarked]) {
        const db = new DatabaseSync(file, { readOnly: true })
        expect(db.prepare("PRAGMA application_id").get()).toEqual({ application_id: 0x414b5353 })
        db.close()
      }
    })
  )
})

describe("store failures say why, in one line", () => {
  it.effect("a file that is no database: corrupt, naming the file", () =>
    Effect.gen(function* () {
      const file = path.join(directory(), "agent.db")
      fs.writeFileSync(file, "this is not a database; ".repeat(200))
      const error = yield* opening(Engine.layerSqlite(file))
      expect(error.reason).toBe("corrupt")
      expect(error.message).toContain(file)
      expect(error.message).toMatch(/not a database/)
      expect(error.message).not.toContain("\n")
    })
  )

  it.effect("a store whose directory does not exist: it says so", () =>
    Effect.gen(function* () {
      const file = path.join(directory(), "gone", "agent.db")
      const error = yield* opening(Engine.layerSqlite(file))
      expect([error.reason, error.message]).toEqual([
        "missing",
        `cannot create the session store ${file}: its directory ${path.dirname(file)} does not exist`
      ])
    })
  )

  it.effect("a full database: disk-full, saying which write failed", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("noted")])
      const file = path.join(directory(), "agent.db")
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("PRAGMA max_page_count = 1")
        const error = yield* Effect.flip(sessions.run("s", "x".repeat(20_000)))
        expect(error._tag).toBe("StoreError")
        if (error._tag !== "StoreError") return
        expect(error.reason).toBe("disk-full")
        expect(error.message).toMatch(/^cannot start a run of the session "s": .*full/)
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m" }).pipe(
            Layer.provideMerge(Engine.layerSqlite(file)),
            Layer.provide(model.layer)
          )
        ),
        Effect.scoped
      )
    })
  )

  it.effect("a row that does not decode: invalid-row, one short line naming the session", () =>
    Effect.gen(function* () {
      const file = path.join(directory(), "agent.db")
      yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const state = JSON.stringify({ history: [{ role: "narrator", content: "x".repeat(5000) }] })
        yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
          VALUES ('bad', 'l', ${state}, 'completed', 1, NULL, 0, 0)`
        const error = yield* Effect.flip(DurableSessions.read("bad"))
        expect(error.reason).toBe("invalid-row")
        expect(error.message).toMatch(/^cannot read the session "bad": a row does not decode: /)
        expect(error.message).not.toContain("\n")
        expect(error.message.length).toBeLessThanOrEqual(300)
      }).pipe(Effect.provide(Engine.layerSqlite(file)), Effect.scoped)
    })
  )
})
