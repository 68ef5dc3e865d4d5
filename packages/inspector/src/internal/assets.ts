/**
 * The page's stylesheet and script, served by the inspector itself. The
 * script is plain browser JavaScript with no library: the pages are rendered
 * on the server, and the script only follows the live stream
 * (`EventSource`), sends the two actions (`fetch`), and shows an event in
 * full.
 *
 * @internal
 */

/** A short fingerprint of a text (FNV-1a), naming an asset's version in its URL. */
const fingerprint = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(36)
}

/** @internal */
export const css = `:root{--fg:#1d2330;--muted:#6b7280;--line:#e3e6eb;--bg:#fbfbfc;--ok:#3d8b4f;--bad:#c9362f;--warn:#b7791f;--run:#2f6fde}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{display:flex;gap:16px;align-items:center;padding:10px 20px;background:#1d2330;color:#fff}
header.top a.brand{color:#fff;font-weight:600;text-decoration:none;white-space:nowrap}
#banner{padding:4px 10px;border-radius:4px;background:#fff3cd;color:#5c4400}
#banner.err{background:#fde2e1;color:#7a1a15}
main{padding:16px 20px;max-width:1600px}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:22px 0 8px}
a{color:#2356b8}
.muted{color:var(--muted);font-weight:normal}
.id{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:#f3f4f6}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.input{max-width:420px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.status{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#e5e7eb}
.s-running{background:#dbe7fd;color:#1c4fb0}.s-resumable{background:#fff1d6;color:#8a5a00}.s-paused{background:#fff1d6;color:#8a5a00}
.s-completed{background:#dcf2e1;color:#1f6b34}.s-interrupted{background:#ece4f7;color:#5b3a8c}
.s-failed{background:#fde2e1;color:#8f1f19}.s-new{background:#eef0f3;color:#4b5563}
form.search{display:flex;gap:8px;margin-bottom:10px}
form.search input{flex:0 1 360px;padding:5px 8px}
.pager{display:flex;gap:14px;align-items:center;margin:8px 0;color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 10px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.actions{display:flex;flex-wrap:wrap;gap:10px;align-items:center;padding:10px;background:#fff;border:1px solid var(--line);border-radius:6px}
.actions input{padding:4px 6px;width:260px}
#action-result.ok{color:var(--ok)}#action-result.err{color:var(--bad)}
.live{background:#fff;border:1px solid var(--line);border-radius:6px;padding:4px 12px 10px}
.live-text{white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;min-height:1.5em;max-height:320px;overflow:auto}
.live-text .attempt.discarded{text-decoration:line-through;color:var(--muted)}
.live-text .run-head{color:var(--muted);margin-top:6px}
.live-text .waiting{color:var(--muted);font-family:system-ui,sans-serif}
.live-events{font-size:12px;color:#374151;max-height:220px;overflow:auto;margin:6px 0 0;padding-left:22px}
ol.history{list-style:none;padding:0}
li.message{display:grid;grid-template-columns:80px 1fr;gap:8px;padding:6px 0;border-bottom:1px solid var(--line)}
li.message .role{color:var(--muted);font-weight:600}
.blocks .text{white-space:pre-wrap}
details{margin:2px 0}details summary{cursor:pointer}
details pre,.event-panel pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;padding:8px;border-radius:4px;max-height:420px;overflow:auto;font-size:12px}
details.tool-result.error summary{color:var(--bad)}
.error-page{background:#fff;border:1px solid #f2b8b5;border-radius:6px;padding:10px 18px}
.error-page .message{font-size:15px}
.empty{color:var(--muted)}
ul.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;font-size:12px;color:var(--muted)}
ul.legend .key{display:inline-block;width:14px;height:10px;margin-right:5px;border-radius:2px;vertical-align:middle}
.key.attempt.ok{background:#3d8b4f}.key.attempt.failed{background:#c9362f}.key.wait.retry-after{background:#8e6bd1}.key.wait.backoff{background:#f0ad4e}
.key.marker{background:#1f77b4;transform:rotate(45deg);width:9px;height:9px}.key.tool.ok{background:#79b36a}.key.tool.error{background:#e06666}
.key.crash{background:#7a0000}.key.breaker-open{background:#cc0000}.key.budget{background:#1f77b4;height:3px}
.timeline-box{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:6px;padding:6px 0}
.event-panel{margin-top:12px}
#event-summary{margin:0 0 6px;font-weight:600}
svg.timeline text{font:10px system-ui,sans-serif;fill:#374151}
svg.timeline .ll{text-anchor:end;font-size:11px;font-weight:600}svg.timeline .ll.sub{font-weight:normal}
svg.timeline .tl{text-anchor:middle;fill:#6b7280}svg.timeline .tick{stroke:#9ca3af}
svg.timeline .turn{stroke:#eceef1}
svg.timeline .bl{fill:#fff;pointer-events:none}
svg.timeline .note{fill:#9ca3af}
svg.timeline .ti{cursor:pointer}
svg.timeline .ti:hover rect,svg.timeline .ti:hover path,svg.timeline .ti:focus rect{stroke:#111;stroke-width:1}
svg.timeline .ti.selected rect,svg.timeline .ti.selected path,svg.timeline .ti.selected circle{stroke:#111;stroke-width:2}
svg.timeline .attempt.ok rect{fill:#3d8b4f}svg.timeline .attempt.failed rect{fill:#c9362f}
svg.timeline .attempt.filtered rect{fill:#8e44ad}svg.timeline .attempt.cut rect{fill:#9ca3af}svg.timeline .attempt.pending rect{fill:#2f6fde}
svg.timeline .wait.retry-after rect{fill:#8e6bd1}svg.timeline .wait.backoff rect{fill:#f0ad4e}
svg.timeline .marker path{fill:#1f77b4}svg.timeline .marker.reduction path{fill:#0f9fb3}svg.timeline .marker.filter path{fill:#8e44ad}
svg.timeline .marker.restart path{fill:#ff7f0e}svg.timeline .marker.quota path{fill:#c9362f}svg.timeline .marker.warning path{fill:#b7a21f}
svg.timeline .marker.paused path{fill:#b7791f}svg.timeline .marker.resumed path{fill:#2ca02c}svg.timeline .marker.end path{fill:#374151}
svg.timeline .tool.ok rect{fill:#79b36a}svg.timeline .tool.error rect{fill:#e06666}svg.timeline .tool.crashed rect{fill:#7a0000}svg.timeline .tool.pending rect{fill:#2f6fde}
svg.timeline .breaker-span.closed rect{fill:#b6d7a8}svg.timeline .breaker-span.open rect{fill:#cc0000}svg.timeline .breaker-span.half_open rect{fill:#f1c232}
svg.timeline .breaker path{fill:#fff;stroke:#cc0000;stroke-width:2}svg.timeline .breaker.closed path{stroke:#3d8b4f}svg.timeline .breaker.half_open path{stroke:#b7791f}
svg.timeline .crash path{stroke:#7a0000;stroke-width:2.5;fill:none}
svg.timeline .budget-line{fill:none;stroke:#1f77b4;stroke-width:2}svg.timeline .budget circle{fill:#1f77b4}
`

/** @internal */
export const script = `(function () {
  "use strict";
  var body = document.body;
  var base = body.getAttribute("data-base") || "";
  var page = body.getAttribute("data-page");
  var session = body.getAttribute("data-session");
  var banner = document.getElementById("banner");
  var tokenKey = "agent-kernel-inspector-token";

  function api(path) { return base + "/api" + path; }
  function sessionPath() { return "/sessions/" + encodeURIComponent(session || ""); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function showBanner(text, kind) {
    if (!banner) return;
    banner.textContent = text || "";
    banner.className = kind || "";
    banner.hidden = !text;
  }

  // Status: what the badge, the facts and the buttons say.
  function statusText(summary) {
    if (summary.status === "failed" && summary.run_status) return "failed: " + summary.run_status;
    if (summary.status === "resumable") return "interrupted, resumable";
    if (summary.status === "paused" && summary.paused)
      return "paused: " + summary.paused.reason + " since " + new Date(summary.paused.paused_at).toISOString() +
        (summary.paused.resume_at === null ? "" : ", resumes at " + new Date(summary.paused.resume_at).toISOString());
    return summary.status;
  }
  function fact(name, value) {
    var node = document.querySelector('[data-fact="' + name + '"]');
    if (node) node.textContent = value;
  }
  function applyStatus(summary) {
    body.setAttribute("data-status", summary.status);
    var holder = document.getElementById("session-status");
    if (holder) {
      var badge = el("span", "status s-" + summary.status, statusText(summary));
      badge.setAttribute("data-status", summary.status);
      holder.replaceChildren(badge);
    }
    fact("runs", summary.runs.toLocaleString("en-US"));
    fact("retries_used", summary.retries_used.toLocaleString("en-US"));
    fact("retries_left", summary.retries_left === null ? "\\u2014" : summary.retries_left.toLocaleString("en-US"));
    fact("messages", summary.messages.toLocaleString("en-US"));
    fact("last_activity", new Date(summary.last_activity).toISOString().replace("T", " ").slice(0, 19) + " UTC");
    var resume = document.querySelector('button[data-action="resume"]');
    var interrupt = document.querySelector('button[data-action="interrupt"]');
    if (resume) resume.disabled = summary.status !== "resumable" && summary.status !== "paused";
    if (interrupt) interrupt.disabled = summary.status !== "running";
  }
  function refreshStatus() {
    if (!session) return;
    fetch(api(sessionPath()))
      .then(function (response) { return response.json().then(function (value) { return { ok: response.ok, value: value }; }); })
      .then(function (result) { if (result.ok) applyStatus(result.value.summary); else showBanner(result.value.message, "err"); })
      .catch(function () { showBanner("The inspector does not answer.", "err"); });
  }

  // Actions: each sends the token typed into the page (kept for this tab only).
  var tokenInput = document.getElementById("token");
  if (tokenInput) {
    tokenInput.value = sessionStorage.getItem(tokenKey) || "";
    tokenInput.addEventListener("change", function () { sessionStorage.setItem(tokenKey, tokenInput.value.trim()); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("button[data-action]"), function (button) {
    button.addEventListener("click", function () {
      var action = button.getAttribute("data-action");
      var out = document.getElementById("action-result");
      var token = tokenInput ? tokenInput.value.trim() : "";
      sessionStorage.setItem(tokenKey, token);
      if (!token) {
        out.textContent = "Enter the action token the inspector printed when it started.";
        out.className = "err";
        return;
      }
      button.disabled = true;
      out.textContent = action === "resume" ? "Resuming\\u2026" : "Interrupting\\u2026";
      out.className = "";
      fetch(api(sessionPath() + "/" + action), { method: "POST", headers: { authorization: "Bearer " + token } })
        .then(function (response) { return response.json().then(function (value) { return { ok: response.ok, value: value }; }); })
        .then(function (result) {
          out.textContent = result.ok ? (action === "resume" ? "Resumed: the run goes on." : "Interrupted.") : result.value.message;
          out.className = result.ok ? "ok" : "err";
          refreshStatus();
        })
        .catch(function () { out.textContent = "The inspector does not answer."; out.className = "err"; refreshStatus(); });
    });
  });

  // The live view: the session's events over SSE, resumed from the last one seen after a dropped connection.
  function describe(event) {
    switch (event.type) {
      case "run_started": return "\\u25b6 run " + event.run_id + " on " + event.model;
      case "turn_started": return "turn " + event.turn;
      case "model_request": return "\\u2192 request " + event.model + (event.attempt > 1 ? " (attempt " + event.attempt + ")" : "");
      case "model_response": return "\\u2190 " + event.stop_reason + " in " + event.duration_ms + " ms";
      case "retry_scheduled": return "\\u21bb " + event.category + ": retry " + event.attempt + " in " + event.delay_ms + " ms (" + (event.source === "retry_after" ? "the server's retry-after" : "backoff") + "), " + event.session_retries_left + " retries left";
      case "fallback": return "\\u21e2 fallback " + event.from + " \\u2192 " + event.to + " after " + event.category;
      case "context_reduced": return "\\u2702 context reduced ~" + event.before + " \\u2192 ~" + event.after + " tokens";
      case "content_filtered": return "\\u26a0 content filtered: " + event.message;
      case "tool_call_started": return "\\u2699 " + event.name + " \\u2026";
      case "tool_result": return (event.is_error ? "\\u2717 " : "\\u2713 ") + event.name + " in " + event.duration_ms + " ms";
      case "breaker_changed": return "\\u26d4 breaker " + event.subject + ": " + event.from + " \\u2192 " + event.to;
      case "stream_restarted": return "\\u21ba stream restarted (" + event.category + ")";
      case "run_paused": return "\\u23f8 paused instead of ending " + event.reason + " (" + event.error.category + ")";
      case "run_resumed": return "\\u25b6 resumed" + (event.reset_budget ? ", the retry budget reset" : "");
      case "run_ended": return "\\u25a0 run ended: " + event.status;
      case "warning": return "! " + event.message;
      default: return event.type;
    }
  }
  var liveBox = document.getElementById("live");
  var timelineBox = document.getElementById("timeline");
  function follow(onEvent) {
    var state = document.getElementById("live-state");
    var lastSeq = Number(body.getAttribute("data-after") || "0");
    var counts = { received: 0, gaps: 0, duplicates: 0, reconnects: 0, opened: 0 };
    var source = null;
    function record(text) {
      if (!state) return;
      state.setAttribute("data-received", String(counts.received));
      state.setAttribute("data-gaps", String(counts.gaps));
      state.setAttribute("data-duplicates", String(counts.duplicates));
      state.setAttribute("data-reconnects", String(counts.reconnects));
      state.setAttribute("data-last-seq", String(lastSeq));
      if (text) state.textContent = text;
    }
    function connect() {
      source = new EventSource(api(sessionPath() + "/live?after=" + lastSeq));
      source.addEventListener("open", function () {
        counts.opened += 1;
        if (counts.opened > 1) counts.reconnects += 1;
        showBanner("");
        record("following (event " + lastSeq + ")");
      });
      source.addEventListener("kernel", function (message) {
        var seq = Number(message.lastEventId);
        if (seq <= lastSeq) { counts.duplicates += 1; record(); return; }
        if (seq !== lastSeq + 1) counts.gaps += seq - lastSeq - 1;
        lastSeq = seq;
        counts.received += 1;
        onEvent(seq, JSON.parse(message.data));
        record("following (event " + lastSeq + ")");
      });
      source.addEventListener("status", function (message) { applyStatus(JSON.parse(message.data)); });
      source.addEventListener("store-error", function (message) {
        source.close();
        showBanner("The session store cannot be read: " + JSON.parse(message.data).message + ". Retrying every 3 s.", "err");
        record("stopped: the store cannot be read");
        setTimeout(connect, 3000);
      });
      source.addEventListener("not-found", function (message) {
        source.close();
        showBanner(JSON.parse(message.data).message, "err");
        record("stopped");
      });
      source.addEventListener("error", function () {
        if (source.readyState === 2) {
          showBanner("The inspector does not answer; retrying every 3 s.", "err");
          record("disconnected");
          setTimeout(connect, 3000);
        } else record("reconnecting\\u2026");
      });
    }
    connect();
  }
  if (liveBox && session) {
    var textBox = document.getElementById("live-text");
    var list = document.getElementById("live-events");
    var current = null;
    follow(function (seq, event) {
      var waiting = document.getElementById("live-waiting");
      if (waiting) waiting.remove();
      if (event.type === "run_started") {
        textBox.appendChild(el("div", "run-head", "run " + event.run_id));
        current = null;
      } else if (event.type === "model_request") {
        current = el("div", "attempt");
        current.setAttribute("data-attempt", String(event.attempt));
        textBox.appendChild(current);
      } else if (event.type === "text_delta") {
        if (!current) { current = el("div", "attempt"); textBox.appendChild(current); }
        current.textContent += event.text;
        textBox.scrollTop = textBox.scrollHeight;
        return;
      } else if (event.type === "stream_restarted") {
        if (current) current.classList.add("discarded");
        current = null;
      }
      if (event.type === "thinking_delta" || event.type === "tool_use_started") return;
      var item = el("li", "ev " + event.type, describe(event));
      item.setAttribute("data-seq", String(seq));
      list.appendChild(item);
      while (list.children.length > 300) list.removeChild(list.firstChild);
      list.scrollTop = list.scrollHeight;
    });
  }

  // The timeline: an item's event in full on hover or selection; a live run's drawing follows its events.
  if (timelineBox && session) {
    var cache = {};
    var selected = null;
    var panel = document.getElementById("event-json");
    var seqLabel = document.getElementById("event-seq");
    var summary = document.getElementById("event-summary");
    function show(seq, item) {
      seqLabel.textContent = "#" + seq;
      summary.textContent = item ? item.getAttribute("aria-label") || "" : "";
      if (cache[seq]) { panel.textContent = cache[seq]; return; }
      fetch(api(sessionPath() + "/events/" + seq))
        .then(function (response) { return response.json(); })
        .then(function (value) { cache[seq] = JSON.stringify(value.event || value, null, 2); if (seqLabel.textContent === "#" + seq) panel.textContent = cache[seq]; })
        .catch(function () { panel.textContent = "The inspector does not answer."; });
    }
    function itemOf(target) { return target && target.closest ? target.closest(".ti") : null; }
    timelineBox.addEventListener("mouseover", function (e) { var item = itemOf(e.target); if (item) show(item.getAttribute("data-seq"), item); });
    timelineBox.addEventListener("focusin", function (e) { var item = itemOf(e.target); if (item) show(item.getAttribute("data-seq"), item); });
    timelineBox.addEventListener("mouseleave", function () { if (selected) show(selected.getAttribute("data-seq"), selected); });
    timelineBox.addEventListener("click", function (e) {
      var item = itemOf(e.target);
      if (!item) return;
      if (selected) selected.classList.remove("selected");
      selected = item;
      item.classList.add("selected");
      show(item.getAttribute("data-seq"), item);
    });
    if (body.getAttribute("data-live") === "true") {
      var run = body.getAttribute("data-run");
      var pending = false;
      var redraw = function () {
        pending = false;
        fetch(base + sessionPath() + "/runs/" + run + "/timeline.svg")
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (svg) {
            if (svg === null) return;
            var seq = selected ? selected.getAttribute("data-seq") : null;
            timelineBox.innerHTML = svg;
            if (seq) { selected = timelineBox.querySelector('.ti[data-seq="' + seq + '"]'); if (selected) selected.classList.add("selected"); }
          });
      };
      follow(function (seq, event) {
        if (event.type === "text_delta" || event.type === "thinking_delta") return;
        if (!pending) { pending = true; setTimeout(redraw, 250); }
      });
    }
  }

  var statusSelect = document.querySelector("form.search select");
  if (statusSelect) statusSelect.addEventListener("change", function () { statusSelect.form.submit(); });
  void page;
})();
`

/** The assets' paths, with their version: a browser keeps them until they change. @internal */
export const paths = {
  css: `/assets/inspector.css?v=${fingerprint(css)}`,
  script: `/assets/inspector.js?v=${fingerprint(script)}`
}
