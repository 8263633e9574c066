/**
 * `jpt check --fix`: move the keys released jp rejects (jpt's settings, such
 * as `conversation.turn_summary`) out of the TOML config files jp reads into
 * `.jp/jpt.toml`, which jpt reads with the same key paths and jp never
 * reads. The moved lines go verbatim, with their comments; everything else
 * of both files stays as it was, byte for byte. Each change is shown as a
 * unified diff before it is written; `.jp/jpt.toml` is written first, so no
 * setting is ever missing from both files. A file whose keys cannot be moved
 * by lines (an inline table), or whose lines would clash with what
 * `.jp/jpt.toml` already holds, is left alone and named, with its keys, to be
 * moved by hand. Writes keep each file's permissions and never follow a
 * symbolic link out of the workspace.
 *
 * @module
 */

import { join, relative } from "../../platform/path.ts";
import { parse as parseToml } from "smol-toml";
import { keysJpRejects } from "../../config/jp_known_keys.ts";
import { jpConfigFiles } from "../../config/jp_config_files.ts";
import { removeTomlKeys } from "../../config/move_toml_keys.ts";
import { isPlainObject } from "../../config/schema.ts";
import { unifiedDiff } from "../../config/unified_diff.ts";
import { writeFileAtomic, writeTarget } from "../../workspace/atomic_write.ts";

/** What the fix did. */
export interface ConfigFixReport {
  /** The unified diff of every file changed, one line each. */
  diff: string[];
  /** Files written. */
  written: string[];
  /** Files whose rejected keys could not be moved automatically, with the keys. */
  manual: Array<{ path: string; keys: string[]; reason: string }>;
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
  const edits: Array<{ path: string; before: string; text: string }> = [];
  for (const path of await jpConfigFiles(root)) {
    // Only regular files are fixed (`jpt check` reports the others).
    if (!(await Deno.stat(path)).isFile) continue;
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
    const appended = removal?.moved === undefined
      ? undefined
      : appendVerified(jptText, removal.moved, removal.removed);
    if (removal === undefined || appended === undefined) {
      report.manual.push({
        path,
        keys,
        reason: removal === undefined
          ? "not a TOML file jpt edits"
          : removal.moved === undefined
          ? "an inline table holds them"
          : ".jp/jpt.toml already has these tables or keys, and the moved lines would clash with its own",
      });
      continue;
    }
    jptText = appended;
    edits.push({ path, before: text, text: removal.text });
  }
  if (edits.length === 0) return report;
  const show = (path: string) => relative(cwd, path);
  for (const edit of edits) {
    report.diff.push(
      ...unifiedDiff(show(edit.path), show(edit.path), edit.before, edit.text),
    );
  }
  report.diff.push(
    ...unifiedDiff(
      jptBefore === "" ? "/dev/null" : show(jptPath),
      show(jptPath),
      jptBefore,
      jptText,
    ),
  );
  // Every file may be written (no link leads out of the workspace) before
  // the first is.
  for (const path of [jptPath, ...edits.map((edit) => edit.path)]) {
    await writeTarget(path, root);
  }
  const write = (path: string, text: string) =>
    writeFileAtomic(path, new TextEncoder().encode(text), { within: root });
  await write(jptPath, jptText);
  report.written.push(jptPath);
  for (const edit of edits) {
    await write(edit.path, edit.text);
    report.written.push(edit.path);
  }
  return report;
}

/**
 * `.jp/jpt.toml`'s text with the moved lines appended, when that parses to
 * its values plus the moved ones (the lines clash with nothing it holds);
 * `undefined` otherwise.
 */
function appendVerified(
  text: string,
  moved: string,
  values: Record<string, unknown>,
): string | undefined {
  const separator = text === "" ? "" : text.endsWith("\n") ? "\n" : "\n\n";
  const appended = `${text}${separator}${moved}`;
  try {
    const current = text.trim() === ""
      ? {}
      : parseToml(text) as Record<string, unknown>;
    const expected = merge(structuredClone(current), values);
    return canonical(parseToml(appended)) === canonical(expected)
      ? appended
      : undefined;
  } catch {
    // A table or key it already has: move by hand.
    return undefined;
  }
}

/** JSON with object keys sorted, for comparing tables. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      isPlainObject(item)
        ? Object.fromEntries(Object.keys(item).sort().map((k) => [k, item[k]]))
        : item instanceof Date
        ? item.toISOString()
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
