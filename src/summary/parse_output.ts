/**
 * Reading a model's answer: `<think>` blocks stripped, the JSON object found
 * (the whole answer, a fenced block, or the first balanced object in it),
 * only the requested ids kept, each summary normalized, blanks dropped.
 *
 * @module
 */

import { normalizeTurnSummary } from "../conversation/summary_text.ts";

const THINK = /<think(?:ing)?>[\s\S]*?(?:<\/think(?:ing)?>|$)/gi;

/**
 * Extracts summaries from a model's answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSummaries } from "./parse_output.ts";
 * const answer = '<think>hmm</think>{"summaries": {"a": "Fix the build.", "zzz": "Not asked"}}';
 * assert.deepEqual(parseSummaries(answer, ["a"]), new Map([["a", "Fix the build"]]));
 * ```
 *
 * @param answer The answer text (untrusted).
 * @param ids The ids that were asked for.
 * @returns Normalized summaries by id; ids not asked for and blank answers are dropped.
 */
export function parseSummaries(
  answer: string,
  ids: readonly string[],
): Map<string, string> {
  const wanted = new Set(ids);
  const found = new Map<string, string>();
  const object = findJsonObject(answer.replace(THINK, ""));
  if (object === undefined) return found;
  const inner = isObject(object.summaries) ? object.summaries : object;
  for (const [id, value] of Object.entries(inner)) {
    if (!wanted.has(id) || typeof value !== "string") continue;
    const summary = normalizeTurnSummary(value);
    if (summary !== undefined) found.set(id, summary);
  }
  return found;
}

function findJsonObject(text: string): Record<string, unknown> | undefined {
  const attempt = (candidate: string) => {
    try {
      const value = JSON.parse(candidate);
      return isObject(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const whole = attempt(text.trim());
  if (whole) return whole;
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) {
    const inFence = attempt(fenced[1]!.trim());
    if (inFence) return inFence;
  }
  for (
    let start = text.indexOf("{");
    start >= 0;
    start = text.indexOf("{", start + 1)
  ) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    const candidate = attempt(text.slice(start, end + 1));
    if (candidate) return candidate;
  }
  return undefined;
}

/** The index of the `}` closing the object that opens at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
