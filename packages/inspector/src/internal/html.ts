import * as Assets from "./assets.js"

/** Escapes text for HTML content and attribute values. @internal */
export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** A path segment of a URL: a session id may hold any character. @internal */
export const segment = (text: string): string => encodeURIComponent(text)

/** A time as people read it, in UTC. @internal */
export const time = (epochMs: number): string =>
  Number.isFinite(epochMs) && epochMs > 0 ? new Date(epochMs).toISOString().replace("T", " ").slice(0, 19) : "—"

/** A count with thousands separators. @internal */
export const count = (n: number): string => n.toLocaleString("en-US")

/** The text on one line, cut at `max` characters. @internal */
export const oneLine = (text: string, max = 120): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** What every page is framed with. @internal */
export interface Frame {
  readonly base: string
  readonly title: string
  readonly page: "sessions" | "session" | "run" | "error"
  /** Extra attributes of the body, already escaped. */
  readonly data?: Readonly<Record<string, string>> | undefined
}

/** A whole page: the frame around `main`. Assets come from the inspector itself. @internal */
export const layout = (frame: Frame, main: string): string => {
  const data = Object.entries(frame.data ?? {})
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join("")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(frame.title)} · agent-kernel inspector</title>
<link rel="stylesheet" href="${escapeHtml(frame.base)}${Assets.paths.css}">
<script src="${escapeHtml(frame.base)}${Assets.paths.script}" defer></script>
</head>
<body data-page="${frame.page}" data-base="${escapeHtml(frame.base)}"${data}>
<header class="top"><a class="brand" href="${escapeHtml(frame.base)}/">agent-kernel inspector</a><span id="banner" role="status" hidden></span></header>
<main>
${main}
</main>
</body>
</html>`
}
