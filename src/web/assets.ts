/**
 * The viewer's stylesheet and script, served as files of their own (the
 * Content-Security-Policy allows no inline script or style). The script is
 * plain browser JavaScript: keyboard navigation between turns, the outline
 * following the scroll, and live updates from the server's event stream.
 * Reading works without it (the outline's entries are anchors).
 *
 * @module
 */

/** `style.css`. */
export const STYLE_CSS =
  `:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --dim: #656d76;
  --line: #d0d7de; --mark: #fff8c5; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --dim: #8d96a0;
  --line: #30363d; --mark: #3b2f00; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem;
  border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--bg); z-index: 2; }
header.top a { color: inherit; text-decoration: none; font-weight: 600; }
header.top form { margin-left: auto; }
input[type=search] { font: inherit; padding: .25rem .5rem; border: 1px solid var(--line);
  border-radius: 6px; background: var(--bg); color: var(--fg); min-width: 18rem; }
main.list { max-width: 70rem; margin: 0 auto; padding: 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--dim); font-weight: 500; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.dim { color: var(--dim); }
.tag { font-size: .8em; border: 1px solid var(--line); border-radius: 4px; padding: 0 .3em; color: var(--dim); }
div.conversation { display: grid; grid-template-columns: minmax(14rem, 22rem) 1fr; }
nav.outline { position: sticky; top: 2.9rem; height: calc(100vh - 2.9rem); overflow: auto;
  border-right: 1px solid var(--line); padding: .5rem 0; font-size: .9em; }
nav.outline ol { list-style: none; margin: 0; padding: 0; }
nav.outline a { display: block; padding: .15rem .75rem; color: inherit; text-decoration: none; }
nav.outline a:hover, nav.outline a.current { background: var(--mark); }
nav.outline .n { color: var(--dim); margin-right: .35em; }
article.reading { padding: 1rem 2rem; min-width: 0; }
section.turn { border-top: 1px solid var(--line); padding: .5rem 0 1rem; scroll-margin-top: 3rem; }
section.turn h2 { font-size: 1.05em; margin: .5rem 0; }
section.turn.current h2 { color: var(--accent); }
.role { font-size: .8em; text-transform: uppercase; letter-spacing: .05em; color: var(--dim); margin-top: .75rem; }
.text pre { overflow: auto; padding: .75rem; border: 1px solid var(--line); border-radius: 6px; }
.text code { font: .9em ui-monospace, monospace; }
details { margin: .5rem 0; color: var(--dim); }
details pre { white-space: pre-wrap; word-break: break-word; }
.fallback, .stale { font-size: .8em; color: var(--dim); }
.pages { margin: 1rem 0; }
.hljs-keyword, .hljs-built_in { color: #cf222e; } .hljs-string { color: #0a3069; }
.hljs-comment { color: var(--dim); font-style: italic; } .hljs-number, .hljs-literal { color: #0550ae; }
@media (prefers-color-scheme: dark) { .hljs-keyword, .hljs-built_in { color: #ff7b72; }
  .hljs-string { color: #a5d6ff; } .hljs-number, .hljs-literal { color: #79c0ff; } }
`;

/** `app.js`. */
export const APP_JS = `"use strict";
(() => {
  const turns = () => [...document.querySelectorAll("section.turn")];
  const outlineLink = (id) => document.querySelector('nav.outline a[data-turn="' + CSS.escape(id) + '"]');
  let current;
  const mark = (section) => {
    if (!section || section === current) return;
    current?.classList.remove("current");
    outlineLink(current?.id ?? "")?.classList.remove("current");
    current = section;
    section.classList.add("current");
    const link = outlineLink(section.id);
    if (link) {
      link.classList.add("current");
      link.scrollIntoView({ block: "nearest" });
    }
  };
  // The topmost turn in the upper part of the window is the current one.
  const visible = new Set();
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) visible.add(entry.target);
      else visible.delete(entry.target);
    }
    const top = [...visible].sort((a, b) =>
      a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
    if (top && !jumped) mark(top);
    jumped = false;
  }, { rootMargin: "0px 0px -70% 0px" });
  // A jump (an outline link, a key) decides the current turn itself.
  let jumped = false;
  window.addEventListener("hashchange", () => {
    jumped = true;
    mark(document.getElementById(decodeURIComponent(location.hash.slice(1))));
  });
  turns().forEach((section) => observer.observe(section));
  const go = (step) => {
    const all = turns();
    if (all.length === 0) return;
    const at = current ? all.indexOf(current) : -1;
    const next = all[Math.max(0, Math.min(all.length - 1, at + step))];
    jumped = true;
    next.scrollIntoView({ block: "start" });
    mark(next);
    history.replaceState(null, "", "#" + next.id);
  };
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === "j" || event.key === "ArrowDown") { event.preventDefault(); go(1); }
    if (event.key === "k" || event.key === "ArrowUp") { event.preventDefault(); go(-1); }
  });
  if (location.hash) {
    jumped = true;
    mark(document.getElementById(decodeURIComponent(location.hash.slice(1))));
  }
  const filter = document.querySelector("input[data-filter]");
  filter?.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
    for (const row of document.querySelectorAll("tr[data-text]")) {
      row.hidden = !words.every((w) => row.dataset.text.includes(w));
    }
  });
  const body = document.body;
  const events = new EventSource(body.dataset.events);
  events.addEventListener("change", async (message) => {
    const { conversation } = JSON.parse(message.data);
    const here = body.dataset.conversation;
    if (here === undefined) { if (body.dataset.page === "list") location.reload(); return; }
    if (conversation !== here) return;
    const response = await fetch(body.dataset.summaries, { cache: "no-store" });
    if (!response.ok) return;
    const turnsNow = await response.json();
    if (turnsNow.length !== Number(body.dataset.turns)) { location.reload(); return; }
    for (const turn of turnsNow) {
      const id = turn.anchor;
      const link = outlineLink(id);
      const heading = document.querySelector("#" + CSS.escape(id) + " h2 .summary");
      const text = turn.summary ?? turn.fallback ?? "";
      if (link) link.querySelector(".summary").textContent = text;
      if (heading) heading.textContent = text;
      for (const el of [link, document.getElementById(id)]) {
        el?.classList.toggle("is-fallback", turn.summary === null);
      }
    }
  });
})();
`;
