/**
 * Removing keys from a TOML file's text while keeping everything else (its
 * comments, order and layout): whole tables (`[conversation.turn_summary]`
 * and their sub-tables) and key lines (`turn_summary.x = 1` under
 * `[conversation]`, or dotted at the top level), multi-line values included.
 * The result is verified by parsing it: it must hold exactly the original
 * values without the removed keys, or nothing is changed.
 *
 * @module
 */

import { parse as parseToml } from "smol-toml";
import { isPlainObject } from "./schema.ts";

/** The outcome of {@linkcode removeTomlKeys}. */
export interface TomlRemoval {
  /** The new text. */
  text: string;
  /** The values removed, as a table (`{conversation: {turn_summary: …}}`). */
  removed: Record<string, unknown>;
  /** The lines removed, with their 1-based numbers. */
  removedLines: Array<{ line: number; text: string }>;
}

/**
 * Removes keys from TOML text; see the module doc.
 *
 * @param text The file's text.
 * @param keys Dotted keys to remove (each a table or a value).
 * @returns The edit, or `undefined` when the keys cannot be removed by
 *   lines alone (an inline table holds them): move them by hand then.
 */
export function removeTomlKeys(
  text: string,
  keys: readonly string[],
): TomlRemoval | undefined {
  const paths = keys.map((key) => key.split("."));
  const original = parseToml(text) as Record<string, unknown>;
  const lines = text.split("\n");
  const kept: string[] = [];
  const removedLines: TomlRemoval["removedLines"] = [];
  let table: string[] = [];
  let droppingTable = false;
  let open: Continuation | undefined;
  let dropOpen = false;
  lines.forEach((line, index) => {
    if (open !== undefined) {
      open = open.after(line);
      dropOpen
        ? removedLines.push({ line: index + 1, text: line })
        : kept.push(line);
      return;
    }
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      table = splitKey(header[1]!);
      droppingTable = paths.some((path) => startsWith(table, path));
    }
    const assignment = header
      ? undefined
      : /^\s*([A-Za-z0-9_."' -]+?)\s*=(.*)$/.exec(line);
    const full = assignment ? [...table, ...splitKey(assignment[1]!)] : table;
    const drop = droppingTable ||
      (assignment !== undefined &&
        paths.some((path) => startsWith(full, path)));
    if (assignment) open = Continuation.start(assignment[2]!);
    dropOpen = drop;
    if (drop) removedLines.push({ line: index + 1, text: line });
    else kept.push(line);
  });
  const result = kept.join("\n");
  const expected = structuredClone(original);
  const removed: Record<string, unknown> = {};
  for (const path of paths) move(expected, removed, path);
  let parsed: unknown;
  try {
    parsed = parseToml(result);
  } catch {
    return undefined;
  }
  if (!sameValue(parsed, expected)) return undefined;
  return { text: result, removed, removedLines };
}

/** A value that goes on past its line: an array, an inline table or a multi-line string. */
class Continuation {
  readonly #depth: number;
  readonly #quote: string | undefined;

  private constructor(depth: number, quote: string | undefined) {
    this.#depth = depth;
    this.#quote = quote;
  }

  /** The state after the first line of a value, or `undefined` when it ends there. */
  static start(rest: string): Continuation | undefined {
    return new Continuation(0, undefined).after(rest);
  }

  /** The state after one more line. */
  after(line: string): Continuation | undefined {
    let depth = this.#depth;
    let quote = this.#quote;
    for (let i = 0; i < line.length; i++) {
      if (quote !== undefined) {
        if (line.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = undefined;
        } else if (line[i] === "\\" && quote !== "'''" && quote !== "'") i++;
        continue;
      }
      const c = line[i]!;
      if (c === "#") break;
      if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
        quote = line.slice(i, i + 3);
        i += 2;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "[" || c === "{") depth++;
      else if (c === "]" || c === "}") depth--;
    }
    // Single-line strings end with their line.
    if (quote === '"' || quote === "'") quote = undefined;
    return depth > 0 || quote !== undefined
      ? new Continuation(depth, quote)
      : undefined;
  }
}

function splitKey(key: string): string[] {
  return key.split(".").map((part) => part.trim().replace(/^["']|["']$/g, ""));
}

function startsWith(
  path: readonly string[],
  prefix: readonly string[],
): boolean {
  return prefix.length <= path.length &&
    prefix.every((segment, i) => path[i] === segment);
}

function move(
  from: Record<string, unknown>,
  into: Record<string, unknown>,
  path: readonly string[],
): void {
  let source: unknown = from;
  let target = into;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(source)) return;
    source = source[segment];
    if (!isPlainObject(target[segment])) target[segment] = {};
    target = target[segment] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (isPlainObject(source) && last in source) {
    target[last] = source[last];
    delete source[last];
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

/** A canonical form for comparing values: keys sorted, empty tables dropped. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value instanceof Date) return value.toISOString();
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.keys(value).sort().flatMap((key) => {
        const child = sorted(value[key]);
        return isPlainObject(child) && Object.keys(child).length === 0
          ? []
          : [[key, child]];
      }),
    );
  }
  return value;
}
