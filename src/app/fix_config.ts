/**
 * `jpt check --fix`: move the keys released jp rejects (jpt's settings, such
 * as `conversation.turn_summary`) out of the TOML config files jp reads into
 * `.jp/jpt.toml`, which jpt reads with the same key paths and jp never
 * reads. Each change is shown as a diff before it is written; `.jp/jpt.toml`
 * is written first, so no setting is ever missing from both files.
 *
 * @module
 */

import { join, relative } from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { keysJpRejects } from "../config/jp_known_keys.ts";
import { jpConfigFiles } from "../config/jp_config_files.ts";
import { removeTomlKeys } from "../config/move_toml_keys.ts";
import { isPlainObject } from "../config/schema.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";

/** What the fix did. */
export interface ConfigFixReport {
  /** The diff shown, one line each (`--- file`, `-removed`, `+added`). */
  diff: string[];
  /** Files written. */
  written: string[];
  /** Files whose rejected keys could not be moved automatically, with the keys. */
  manual: Array<{ path: string; keys: string[] }>;
}

/**
 * Moves rejected keys of a workspace's jp config files into `.jp/jpt.toml`.
 *
 * @param root The workspace root.
 * @param cwd Where paths in the diff are shown relative to.
 * @returns The diff, the files written, and what must be moved by hand.
 */
export async function fixConfigFiles(
  root: string,
  cwd: string,
): Promise<ConfigFixReport> {
  const report: ConfigFixReport = { diff: [], written: [], manual: [] };
  const jptPath = join(root, ".jp", "jpt.toml");
  const jptBefore = await Deno.readTextFile(jptPath).catch(() => "");
  let jptText = jptBefore;
  const edits: Array<{ path: string; text: string }> = [];
  for (const path of await jpConfigFiles(root)) {
    const text = await Deno.readTextFile(path);
    let keys: string[];
    try {
      keys = keysJpRejects(parseToml(text) as Record<string, unknown>);
    } catch {
      continue; // not TOML (or not valid): `jpt check` reports it
    }
    if (keys.length === 0) continue;
    const removal = path.endsWith(".toml")
      ? removeTomlKeys(text, keys)
      : undefined;
    if (removal === undefined) {
      report.manual.push({ path, keys });
      continue;
    }
    jptText = withValues(jptText, removal.removed);
    edits.push({ path, text: removal.text });
    report.diff.push(`--- ${relative(cwd, path)}`);
    for (const { line, text } of removal.removedLines) {
      report.diff.push(`-${String(line).padStart(4)}: ${text}`);
    }
  }
  if (edits.length === 0) return report;
  report.diff.push(`+++ ${relative(cwd, jptPath)}`);
  for (const line of added(jptBefore, jptText)) report.diff.push(`+${line}`);
  await writeFileAtomic(jptPath, new TextEncoder().encode(jptText));
  report.written.push(jptPath);
  for (const edit of edits) {
    await writeFileAtomic(edit.path, new TextEncoder().encode(edit.text));
    report.written.push(edit.path);
  }
  return report;
}

/**
 * `.jp/jpt.toml`'s text with values added: appended as new tables when that
 * parses to the merged values (the file keeps its comments), else the whole
 * file rewritten from the merged values. Values already in the file win:
 * it is read after jp's files, so they were the ones in effect.
 */
function withValues(text: string, values: Record<string, unknown>): string {
  const current = text.trim() === ""
    ? {}
    : parseToml(text) as Record<string, unknown>;
  const merged = merge(structuredClone(values), current);
  const appended = `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${
    text === "" ? "" : "\n"
  }${stringifyToml(values)}\n`;
  try {
    if (canonical(parseToml(appended)) === canonical(merged)) return appended;
  } catch {
    // Appending would repeat a table: rewrite the file.
  }
  return `${stringifyToml(merged)}\n`;
}

/** JSON with object keys sorted, for comparing tables. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      isPlainObject(item)
        ? Object.fromEntries(Object.keys(item).sort().map((k) => [k, item[k]]))
        : item,
  );
}

function merge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(over)) {
    base[key] = isPlainObject(value) && isPlainObject(base[key])
      ? merge(base[key] as Record<string, unknown>, value)
      : value;
  }
  return base;
}

/** The lines of `after` that are not in `before` (the file only grows or is rewritten). */
function added(before: string, after: string): string[] {
  return after.startsWith(before)
    ? after.slice(before.length).split("\n").filter((line) => line !== "")
    : after.split("\n").filter((line) => line !== "");
}
