/**
 * The field types jp's event structs require (storage reference 2.6): what
 * makes released jp fail to load a file, checked per entry so `jpt check`
 * fails exactly where jp would. Extra keys are not problems (jp ignores
 * them); lone UTF-16 surrogates are (serde_json rejects them).
 *
 * @module
 */

import type { Entry } from "./entry.ts";
import { MAX_DEPTH } from "./json_parse.ts";

/** Type names jp could ever write: lowercase words joined by `_`. */
const TYPE_NAME = /^[a-z][a-z0-9_]*$/;

type Data = Record<string, unknown>;
type Rule = (data: Data, problems: string[]) => void;

const isObject = (value: unknown): value is Data =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function expect(
  problems: string[],
  data: Data,
  key: string,
  kind: "string" | "boolean" | "object" | "array" | "index",
  required: boolean,
): void {
  if (!(key in data)) {
    if (required) problems.push(`needs "${key}"`);
    return;
  }
  const value = data[key];
  const ok = kind === "string"
    ? typeof value === "string"
    : kind === "boolean"
    ? typeof value === "boolean"
    : kind === "object"
    ? isObject(value)
    : kind === "array"
    ? Array.isArray(value)
    : Number.isSafeInteger(value) && (value as number) >= 0;
  if (!ok) {
    const wanted = kind === "index"
      ? "a whole number of at least 0"
      : kind === "object" || kind === "array"
      ? `an ${kind}`
      : `a ${kind}`;
    problems.push(`"${key}" must be ${wanted}, not ${describe(value)}`);
  }
}

const RULES: Record<string, Rule> = {
  turn_start: () => {},
  chat_request: (data, problems) => {
    expect(problems, data, "content", "string", true);
    expect(problems, data, "schema", "object", false);
    expect(problems, data, "author", "string", false);
  },
  chat_response: (data, problems) => {
    if ("message" in data) expect(problems, data, "message", "string", true);
    else if ("reasoning" in data) {
      expect(problems, data, "reasoning", "string", true);
    } else if (!("data" in data)) {
      problems.push('needs one of "message", "reasoning" or "data"');
    }
  },
  tool_call_request: (data, problems) => {
    expect(problems, data, "id", "string", true);
    expect(problems, data, "name", "string", true);
    expect(problems, data, "arguments", "object", false);
  },
  tool_call_response: (data, problems) => {
    expect(problems, data, "id", "string", true);
    expect(problems, data, "content", "string", true);
    expect(problems, data, "is_error", "boolean", true);
  },
  inquiry_request: (data, problems) => {
    expect(problems, data, "id", "string", true);
    expect(problems, data, "source", "object", true);
    expect(problems, data, "question", "object", true);
    if (isObject(data.source)) inquirySource(data.source, problems);
    if (isObject(data.question)) inquiryQuestion(data.question, problems);
  },
  inquiry_response: (data, problems) => {
    expect(problems, data, "id", "string", true);
    if (!("answer" in data)) problems.push('needs "answer"');
  },
  config_delta: (data, problems) => {
    if ("op" in data && data.op !== "apply" && data.op !== "reset") {
      problems.push(
        `"op" must be "apply" or "reset", not ${describe(data.op)}`,
      );
    }
    if ("delta" in data) expect(problems, data, "delta", "object", true);
    if ("unsets" in data) {
      expect(problems, data, "unsets", "array", true);
      if (
        Array.isArray(data.unsets) &&
        data.unsets.some((path) => typeof path !== "string")
      ) problems.push('"unsets" must hold only strings');
    }
  },
  compaction: (data, problems) => {
    expect(problems, data, "from_turn", "index", true);
    expect(problems, data, "to_turn", "index", true);
    expect(problems, data, "summary", "object", false);
    if (isObject(data.summary)) {
      expect(problems, data.summary, "summary", "string", true);
    }
  },
  event_overlay: (data, problems) => {
    expect(problems, data, "patches", "array", true);
  },
};

function inquirySource(source: Data, problems: string[]): void {
  const kind = source.source;
  if (kind === "tool" || kind === "other") {
    if (typeof source.name !== "string") {
      problems.push(`an inquiry source "${kind}" needs a string "name"`);
    }
  } else if (kind !== "assistant" && kind !== "user") {
    problems.push(
      `"source.source" must be tool, assistant, user or other, not ${
        describe(kind)
      }`,
    );
  }
}

function inquiryQuestion(question: Data, problems: string[]): void {
  if (typeof question.text !== "string") {
    problems.push('"question.text" must be a string');
  }
  const answerType = question.answer_type;
  if (!isObject(answerType)) {
    problems.push('"question.answer_type" must be an object');
    return;
  }
  const kind = answerType.type;
  if (kind === "select") {
    const options = answerType.options;
    if (
      !Array.isArray(options) ||
      options.some((option) => !isObject(option) || !("value" in option))
    ) {
      problems.push(
        '"question.answer_type.options" must be a list of {"value", "description"?}',
      );
    }
  } else if (kind !== "boolean" && kind !== "text") {
    problems.push(
      `"question.answer_type.type" must be boolean, text or select, not ${
        describe(kind)
      }`,
    );
  }
}

/**
 * The reasons released jp would fail to load an entry.
 *
 * @param entry The entry.
 * @returns One phrase per problem (empty when jp reads it).
 */
export function entryFieldProblems(entry: Entry): string[] {
  const problems: string[] = [];
  if (!TYPE_NAME.test(entry.type)) {
    problems.push(
      `type ${JSON.stringify(entry.type)} is not an event type name`,
    );
    return problems;
  }
  const data = entry.data();
  // The entry object itself is the second level of the file.
  if (
    openingBracketsExceed(entry.text, MAX_DEPTH - 2) &&
    nestedDeeperThan(data, MAX_DEPTH - 2)
  ) {
    problems.push(
      `is nested deeper than ${MAX_DEPTH} levels, which jp's JSON reader refuses`,
    );
    return problems;
  }
  if (entry.isConversationEvent && "metadata" in data) {
    expect(problems, data, "metadata", "object", true);
  }
  RULES[entry.type]?.(data, problems);
  // JSON text carries a lone surrogate only as a `\u` escape (UTF-8 cannot
  // hold one): an entry without `\u` has none, and is not walked for one.
  const lone = entry.text.includes("\\u")
    ? firstLoneSurrogate(data)
    : undefined;
  if (lone !== undefined) {
    problems.push(
      `holds a lone UTF-16 surrogate (\\u${
        lone.toString(16)
      }), which jp cannot read`,
    );
  }
  return problems;
}

/**
 * Whether a text holds more than `limit` opening brackets (in strings too):
 * without that many, nothing in it can nest deeper than `limit`. Native
 * searches, cheaper than walking the parsed value.
 */
function openingBracketsExceed(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ["{", "["]) {
    for (
      let at = text.indexOf(bracket);
      at >= 0;
      at = text.indexOf(bracket, at + 1)
    ) {
      if (++count > limit) return true;
    }
  }
  return false;
}

/** Whether a value nests arrays and objects deeper than `limit` (without recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) {
        pending.push([child, depth + 1]);
      }
    }
  }
  return false;
}

/**
 * Tells whether an entry holds a lone UTF-16 surrogate, which no text
 * editor and no UTF-8 file can carry (jp cannot read it either).
 *
 * @param entry The entry.
 * @returns `true` when one of its strings has an unpaired surrogate.
 */
export function hasLoneSurrogate(entry: Entry): boolean {
  return firstLoneSurrogate(entry.data()) !== undefined;
}

/** The first unpaired surrogate in any string of a value (keys included). */
function firstLoneSurrogate(value: unknown): number | undefined {
  if (typeof value === "string") {
    if (value.isWellFormed()) return undefined;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = value.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
        return code;
      }
      if (code >= 0xdc00 && code <= 0xdfff) return code;
    }
    return undefined;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstLoneSurrogate(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const found = firstLoneSurrogate(key) ?? firstLoneSurrogate(item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}
