/**
 * For the tests of `agent ui` (ui.test.ts, ui.pg.test.ts): the banner it
 * prints, its pages and actions over real HTTP, and a wait on them.
 */
import type { Running } from "./testBundle.js"

/** The address and the action token in the banner `agent ui` prints. */
export const bannerOf = (stdout: string) => {
  const found = /^agent-kernel inspector: (http:\/\/\S+\/)\naction token \(resume, interrupt\): (\S+)\n/.exec(stdout)
  if (found === null) throw new Error(`no banner in:\n${stdout}`)
  return { url: found[1]!, token: found[2]! }
}

/** The inspector's address and token, once `agent ui` has printed them. */
export const served = async (ui: Running) => {
  await ui.seen(/action token \(resume, interrupt\): \S+\n/)
  return bannerOf(ui.stdout())
}

/** What the log of a session holds, read over HTTP. */
export interface Logged {
  readonly seq: number
  readonly event: {
    readonly type: string
    readonly status?: string
    readonly input?: string
    readonly final_text?: string
  }
}

/**
 * Reads again every 50 ms until `done`; fails with the last value and `context()` past 40 s, a
 * ceiling for a stuck run (below the test's own timeout, which would say nothing).
 */
export const until = async <A>(read: () => Promise<A>, done: (a: A) => boolean, context: () => string): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() - started > 40_000) throw new Error(`not done after 40 s: ${JSON.stringify(value)}\n${context()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A session's logged events. */
export const eventsOver = async (url: string, id: string): Promise<ReadonlyArray<Logged>> =>
  (await (await fetch(`${url}api/sessions/${id}/events`)).json()) as ReadonlyArray<Logged>

/** The sessions page. */
export const sessionsOver = async (
  url: string
): Promise<{
  readonly total: number
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly status: string }>
}> =>
  (await (await fetch(`${url}api/sessions`)).json()) as {
    total: number
    sessions: ReadonlyArray<{ id: string; status: string }>
  }
