/**
 * Markdown for the viewer: markdown-it with raw HTML off (a `<script>` in a
 * reply is shown as text), links only of safe schemes (markdown-it's own
 * check), code blocks highlighted by highlight.js for the languages
 * conversations hold most (others are escaped plain text).
 *
 * @module
 */

import MarkdownIt from "markdown-it";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import ini from "highlight.js/lib/languages/ini";
import yaml from "highlight.js/lib/languages/yaml";
import { escapeHtml } from "./escape_html.ts";

const LANGUAGES = {
  bash,
  diff,
  go,
  javascript,
  json,
  python,
  rust,
  typescript,
  ini,
  yaml,
} as const;

/** Aliases conversations use for the languages above. */
const ALIASES: Readonly<Record<string, keyof typeof LANGUAGES>> = {
  sh: "bash",
  shell: "bash",
  console: "bash",
  js: "javascript",
  ts: "typescript",
  tsx: "typescript",
  py: "python",
  rs: "rust",
  toml: "ini",
  yml: "yaml",
};

let renderer: MarkdownIt | undefined;

function markdown(): MarkdownIt {
  if (renderer !== undefined) return renderer;
  const highlighter = hljs.newInstance();
  for (const [name, language] of Object.entries(LANGUAGES)) {
    highlighter.registerLanguage(name, language);
  }
  renderer = new MarkdownIt({
    html: false,
    linkify: false,
    highlight: (code, lang) => {
      const name = ALIASES[lang.toLowerCase()] ?? lang.toLowerCase();
      if (!(name in LANGUAGES)) return escapeHtml(code);
      try {
        return highlighter.highlight(code, { language: name }).value;
      } catch {
        return escapeHtml(code);
      }
    },
  });
  return renderer;
}

/**
 * Renders untrusted Markdown to HTML that carries no markup of its own.
 *
 * @param text The Markdown (a request or a reply).
 * @returns The HTML.
 */
export function renderMarkdown(text: string): string {
  return markdown().render(text);
}
