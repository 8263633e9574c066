/**
 * Moving keys out of a TOML file's text while keeping everything else (its
 * comments, blank lines, order and layout): whole tables
 * (`[conversation.turn_summary]` and their sub-tables) and key lines
 * (`turn_summary.x = 1` under `[conversation]`), multi-line values
 * included. What is removed is also given back as text to append elsewhere,
 * verbatim: a table goes with its comments (those inside it and the block
 * right above its header); key lines go under their table's header. The
 * result is verified by parsing it: it must hold exactly the original values
 * without the removed keys, or nothing is changed.
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
  /**
   * The removed lines as a TOML text to append to another file (tables with
   * their comments; key lines under their table's header), or `undefined`
   * when they cannot stand alone (a dotted key at the top level).
   */
  moved: string | undefined;
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
  const drop = new Array<boolean>(lines.length).fill(false);
  // Per line: the table it sits in, and whether it is a dropped table's line.
  const tables: string[][] = [];
  const inDroppedTable = new Array<boolean>(lines.length).fill(false);
  const droppedHeaders: number[] = [];
  let table: string[] = [];
  let droppingTable = false;
  let open: Continuation | undefined;
  let dropOpen = false;
  lines.forEach((line, index) => {
    tables.push(table);
    if (open !== undefined) {
      open = open.after(line);
      drop[index] = dropOpen;
      inDroppedTable[index] = droppingTable;
      return;
    }
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      table = splitKey(header[1]!);
      tables[index] = table;
      droppingTable = paths.some((path) => startsWith(table, path));
      if (droppingTable) droppedHeaders.push(index);
    }
    const assignment = header
      ? undefined
      : /^\s*([A-Za-z0-9_."' -]+?)\s*=(.*)$/.exec(line);
    const full = assignment ? [...table, ...splitKey(assignment[1]!)] : table;
    const dropped = droppingTable ||
      (assignment !== undefined &&
        paths.some((path) => startsWith(full, path)));
    if (assignment) open = Continuation.start(assignment[2]!);
    dropOpen = dropped;
    drop[index] = dropped;
    inDroppedTable[index] = droppingTable;
  });
  // The comment block right above a dropped table's header goes with it.
  for (const header of droppedHeaders) {
    for (let k = header - 1; k >= 0 && !drop[k]; k--) {
      if (!lines[k]!.trim().startsWith("#")) break;
      drop[k] = true;
      inDroppedTable[k] = true;
    }
  }
  // Blank lines that end a dropped stretch stay: they separate what is left.
  for (let k = lines.length - 1; k >= 0; k--) {
    if (drop[k] && lines[k]!.trim() === "" && !drop[k + 1]) drop[k] = false;
  }
  const kept: string[] = [];
  const removedLines: TomlRemoval["removedLines"] = [];
  lines.forEach((line, index) => {
    if (drop[index]) removedLines.push({ line: index + 1, text: line });
    else kept.push(line);
  });
  const moved = movedText(lines, drop, tables, inDroppedTable);
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
  return { text: result, removed, removedLines, moved };
}

/** The dropped lines as a text of their own; see {@linkcode TomlRemoval.moved}. */
function movedText(
  lines: readonly string[],
  drop: readonly boolean[],
  tables: readonly string[][],
  inDroppedTable: readonly boolean[],
): string | undefined {
  const out: string[] = [];
  let header: string | undefined;
  for (const [index, line] of lines.entries()) {
    if (!drop[index]) continue;
    if (!inDroppedTable[index]) {
      // A key line of a table that stays: it goes under that table's header.
      const table = tables[index]!;
      if (table.length === 0) return undefined;
      const name = table.map(quoteKey).join(".");
      if (header !== name) {
        if (out.length > 0) out.push("");
        out.push(`[${name}]`);
        header = name;
      }
    } else header = undefined;
    out.push(line);
  }
  while (out.at(-1)?.trim() === "") out.pop();
  return out.length === 0 ? undefined : `${out.join("\n")}\n`;
}

function quoteKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
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
