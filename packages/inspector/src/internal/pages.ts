import type { Content } from "@agent-kernel/kernel"
import * as InspectorStore from "../InspectorStore.js"
import * as Timeline from "../Timeline.js"
import { count, escapeHtml, layout, oneLine, segment, time } from "./html.js"

type Shown = Pick<InspectorStore.SessionSummary, "status" | "run_status" | "paused">

/** How a status reads: "failed" names the run's status, "paused" why and since when. @internal */
export const statusText = (summary: Shown): string =>
  summary.status === "failed" && summary.run_status !== null
    ? `failed: ${summary.run_status}`
    : summary.status === "resumable"
      ? "interrupted, resumable"
      : summary.status === "paused" && summary.paused !== undefined && summary.paused !== null
        ? `paused: ${summary.paused.reason} since ${new Date(summary.paused.paused_at).toISOString()}${
            summary.paused.resume_at === null ? "" : `, resumes at ${new Date(summary.paused.resume_at).toISOString()}`
          }`
        : summary.status

const badge = (summary: Shown) =>
  `<span class="status s-${summary.status}" data-status="${summary.status}">${escapeHtml(statusText(summary))}</span>`

const runBadge = (run: Pick<InspectorStore.RunSummary, "status" | "paused">) => {
  const { status, paused } = run
  if (status === null)
    return paused !== undefined && paused !== null
      ? `<span class="status s-paused">${escapeHtml(`paused: ${paused.reason}`)}</span>`
      : `<span class="status s-running">not ended</span>`
  return `<span class="status s-${status === "completed" ? "completed" : status === "interrupted" ? "interrupted" : "failed"}">${escapeHtml(status)}</span>`
}

const left = (summary: InspectorStore.SessionSummary) =>
  summary.retries_left === null ? "—" : count(summary.retries_left)

/** The sessions page's query, as the page's links carry it. @internal */
export interface SessionsQuery {
  readonly search: string
  readonly status: InspectorStore.SessionStatus | undefined
  readonly page: number
  readonly pageSize: number
}

const statuses: ReadonlyArray<InspectorStore.SessionStatus> = InspectorStore.SessionStatus.literals

const queryString = (query: SessionsQuery, page: number): string => {
  const params = new URLSearchParams()
  if (query.search !== "") params.set("q", query.search)
  if (query.status !== undefined) params.set("status", query.status)
  if (page > 1) params.set("page", String(page))
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

/** The sessions page. @internal */
export const sessions = (base: string, result: InspectorStore.SessionPage, query: SessionsQuery): string => {
  const first = result.total === 0 ? 0 : (query.page - 1) * query.pageSize + 1
  const last = Math.min(result.total, query.page * query.pageSize)
  const pages = Math.max(1, Math.ceil(result.total / query.pageSize))
  const options = statuses
    .map(
      (s) =>
        `<option value="${s}"${query.status === s ? " selected" : ""}>${escapeHtml(statusText({ status: s, run_status: null }))}</option>`
    )
    .join("")
  const rows = result.sessions
    .map(
      (s) =>
        `<tr data-session="${escapeHtml(s.id)}"><td class="id"><a href="${escapeHtml(base)}/sessions/${escapeHtml(segment(s.id))}">${escapeHtml(s.id)}</a></td><td>${badge(s)}</td><td class="n">${count(s.runs)}</td><td class="n">${count(s.retries_used)}</td><td class="n">${left(s)}</td><td class="n">${count(s.messages)}</td><td>${time(s.last_activity)}</td></tr>`
    )
    .join("")
  const nav = `<nav class="pager">${
    query.page > 1 ? `<a rel="prev" href="${escapeHtml(base)}/${queryString(query, query.page - 1)}">← newer</a>` : ""
  }<span>${count(first)}–${count(last)} of ${count(result.total)} (page ${count(query.page)} of ${count(pages)})</span>${
    query.page < pages
      ? `<a rel="next" href="${escapeHtml(base)}/${queryString(query, query.page + 1)}">older →</a>`
      : ""
  }</nav>`
  const table =
    result.sessions.length === 0
      ? `<p class="empty">${result.total === 0 && query.search === "" && query.status === undefined ? "The store holds no session yet." : "No session matches."}</p>`
      : `<table class="sessions"><thead><tr><th>session</th><th>status</th><th>runs</th><th>retries used</th><th>retries left</th><th>messages</th><th>last activity (UTC)</th></tr></thead><tbody>${rows}</tbody></table>`
  return layout(
    { base, title: "Sessions", page: "sessions" },
    `<h1>Sessions</h1>
<form class="search" method="get" action="${escapeHtml(base)}/"><input type="search" name="q" value="${escapeHtml(query.search)}" placeholder="session id contains…" aria-label="search sessions"><select name="status" aria-label="status"><option value="">any status</option>${options}</select><button type="submit">Search</button></form>
${nav}
${table}
${result.sessions.length > 0 ? nav : ""}`
  )
}

const json = (value: unknown): string => {
  const text = JSON.stringify(value, null, 2)
  return text === undefined ? "" : text
}

const block = (b: Content.ContentBlock): string => {
  switch (b.type) {
    case "text":
      return `<div class="text">${escapeHtml(b.text)}</div>`
    case "tool_use":
      return `<details class="tool-use"><summary>⚙ ${escapeHtml(b.name)} <span class="muted">${escapeHtml(b.id)}</span> <span class="muted">${escapeHtml(oneLine(json(b.input), 80))}</span></summary><pre>${escapeHtml(json(b.input))}</pre></details>`
    case "tool_result":
      return `<details class="tool-result${b.is_error === true ? " error" : ""}"><summary>${b.is_error === true ? "✗ error result" : "✓ result"} <span class="muted">${escapeHtml(b.tool_use_id)}</span> <span class="muted">${escapeHtml(oneLine(b.content, 100))}</span></summary><pre>${escapeHtml(b.content)}</pre></details>`
    case "thinking":
      return `<details class="thinking"><summary>thinking <span class="muted">${escapeHtml(oneLine(b.thinking, 80))}</span></summary><pre>${escapeHtml(b.thinking)}</pre></details>`
    case "redacted_thinking":
      return `<div class="muted">(redacted thinking)</div>`
    case "image":
      return `<div class="muted">(an image)</div>`
    case "document":
      return `<div class="muted">(a document)</div>`
  }
}

const message = (m: Content.Message, index: number): string =>
  `<li class="message ${m.role}" data-index="${index}"><div class="role">${m.role}</div><div class="blocks">${m.content.map(block).join("")}</div></li>`

/** How many messages of a long history the session page shows unless asked for all. @internal */
export const shownMessages = 100

/** The session page. @internal */
export const session = (
  base: string,
  detail: InspectorStore.SessionDetail,
  history: Content.History,
  allMessages: boolean
): string => {
  const s = detail.summary
  const from = allMessages ? 0 : Math.max(0, history.length - shownMessages)
  const lastRun = detail.runs.at(-1)
  // The live view replays the run in progress from its start, else shows what comes next.
  const after = lastRun === undefined ? 0 : lastRun.status === null ? lastRun.first_seq - 1 : lastRun.last_seq
  const runs = detail.runs
    .map(
      (r) =>
        `<tr data-run="${r.index}"><td class="n">${r.index}</td><td><a href="${escapeHtml(base)}/sessions/${escapeHtml(segment(s.id))}/runs/${r.index}">${escapeHtml(r.run_id)}</a></td><td>${escapeHtml(r.model)}</td><td>${runBadge(r)}</td><td>${time(r.started_at)}</td><td class="n">${r.ended_at === null ? "—" : escapeHtml(Timeline.formatMs(r.ended_at - r.started_at))}</td><td class="input">${escapeHtml(oneLine(r.input, 90))}</td></tr>`
    )
    .join("")
  return layout(
    {
      base,
      title: `Session ${s.id}`,
      page: "session",
      data: { session: s.id, status: s.status, after: String(after) }
    },
    `<h1>Session <span class="id">${escapeHtml(s.id)}</span> <span id="session-status">${badge(s)}</span></h1>
<dl class="facts" id="facts"><dt>runs</dt><dd data-fact="runs">${count(s.runs)}</dd><dt>retries used</dt><dd data-fact="retries_used">${count(s.retries_used)}</dd><dt>retries left</dt><dd data-fact="retries_left">${left(s)}</dd><dt>messages</dt><dd data-fact="messages">${count(s.messages)}</dd><dt>last activity</dt><dd data-fact="last_activity">${time(s.last_activity)} UTC</dd></dl>
<section class="actions" aria-label="actions">
<label>action token <input type="password" id="token" autocomplete="off" placeholder="printed when the inspector started"></label>
<button type="button" data-action="resume"${s.status === "resumable" || s.status === "paused" ? "" : " disabled"}>${
      s.status === "paused" ? "Resume the paused run" : "Resume the interrupted run"
    }</button>
<button type="button" data-action="interrupt"${s.status === "running" ? "" : " disabled"}>Interrupt the run</button>
<span id="action-result" role="status"></span>
</section>
<section id="live" class="live" aria-label="live"><h2>Live <span id="live-state" class="muted" data-received="0" data-gaps="0" data-duplicates="0" data-reconnects="0" data-last-seq="${after}">connecting…</span></h2><div id="live-text" class="live-text" aria-live="polite">${
      lastRun !== undefined && lastRun.status === null
        ? ""
        : `<div id="live-waiting" class="waiting">No run in progress: the events of the next run appear here as they happen.</div>`
    }</div><ol id="live-events" class="live-events"></ol></section>
<h2>Runs</h2>
${detail.runs.length === 0 ? `<p class="empty">No run yet.</p>` : `<table class="runs"><thead><tr><th>#</th><th>run</th><th>model</th><th>status</th><th>started (UTC)</th><th>took</th><th>input</th></tr></thead><tbody>${runs}</tbody></table>`}
<h2>Messages <span class="muted">(${count(history.length)})</span></h2>
${from > 0 ? `<p><a href="${escapeHtml(base)}/sessions/${escapeHtml(segment(s.id))}?messages=all">Show all ${count(history.length)} messages</a> (the last ${shownMessages} are shown)</p>` : ""}
<ol class="history" start="${from + 1}">${history
      .slice(from)
      .map((m, i) => message(m, from + i))
      .join("")}</ol>`
  )
}

const legend = `<ul class="legend">
<li><span class="key attempt ok"></span>model attempt answered</li>
<li><span class="key attempt failed"></span>attempt failed</li>
<li><span class="key wait retry-after"></span>wait: server's retry-after</li>
<li><span class="key wait backoff"></span>wait: our backoff</li>
<li><span class="key marker"></span>fallback, reduction, filter, restart</li>
<li><span class="key tool ok"></span>tool call</li>
<li><span class="key tool error"></span>tool error</li>
<li><span class="key crash"></span>plugin crash</li>
<li><span class="key breaker-open"></span>breaker open</li>
<li><span class="key budget"></span>retries left</li>
</ul>`

/** The run page: the timeline, and a panel for the event of the item under the pointer. @internal */
export const run = (
  base: string,
  summary: InspectorStore.SessionSummary,
  runSummary: InspectorStore.RunSummary,
  svg: string
): string =>
  layout(
    {
      base,
      title: `Run ${runSummary.run_id}`,
      page: "run",
      data: {
        session: summary.id,
        run: String(runSummary.index),
        live: runSummary.status === null && summary.status === "running" ? "true" : "false",
        after: String(runSummary.last_seq)
      }
    },
    `<p class="crumbs"><a href="${escapeHtml(base)}/sessions/${escapeHtml(segment(summary.id))}">← session ${escapeHtml(summary.id)}</a></p>
<h1>Run <span class="id">${escapeHtml(runSummary.run_id)}</span> ${runBadge(runSummary)}</h1>
<dl class="facts"><dt>model</dt><dd>${escapeHtml(runSummary.model)}</dd><dt>started</dt><dd>${time(runSummary.started_at)} UTC</dd><dt>took</dt><dd>${runSummary.ended_at === null ? "not ended" : escapeHtml(Timeline.formatMs(runSummary.ended_at - runSummary.started_at))}</dd><dt>events</dt><dd>${count(runSummary.first_seq)}–${count(runSummary.last_seq)}</dd><dt>input</dt><dd class="input">${escapeHtml(oneLine(runSummary.input, 200))}</dd></dl>
${legend}
<div class="timeline-box" id="timeline">${svg}</div>
<aside class="event-panel" id="event-panel" aria-live="polite"><h2>Event <span id="event-seq" class="muted"></span></h2><p id="event-summary"></p><pre id="event-json">Hover over or select an item of the timeline to see its event.</pre></aside>`
  )

/** A page that says what went wrong. @internal */
export const error = (base: string, title: string, message: string): string =>
  layout(
    { base, title, page: "error" },
    `<section class="error-page" role="alert"><h1>${escapeHtml(title)}</h1><p class="message">${escapeHtml(message)}</p><p><a href="${escapeHtml(base)}/">Back to the sessions</a></p></section>`
  )
