import { type ConfigTable, getPath } from "../config/config_tree.ts";
import { isPlainObject, unknownKeys } from "../config/schema.ts";
import { type CliContext, inspectedConfig } from "./context.ts";
import { ExitCode, UsageError } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/** Options of `jpt config show`. */
export interface ConfigShowOptions {
  /** Print JSON. */
  json: boolean;
  /** Name the layer that set each value. */
  origin: boolean;
  /** Include this conversation's layer. */
  conversation: string | undefined;
}

/**
 * `jpt config show [KEY]`: the effective config, or one key of it, as
 * `key = value` lines (values in JSON notation) or JSON; `--origin` names the
 * layer that set each value. Keys jpt does not know are reported on stderr.
 *
 * @param context The command context.
 * @param key A dotted key, or `undefined` for everything.
 * @param options Output options.
 * @returns The exit code (1 when the key is not set).
 */
export async function configShowCommand(
  context: CliContext,
  key: string | undefined,
  options: ConfigShowOptions,
): Promise<number> {
  const config = await inspectedConfig(context, options.conversation);
  if (key !== undefined && !/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/.test(key)) {
    throw new UsageError(`"${key}" is not a dotted config key`);
  }
  const path = key === undefined ? [] : key.split(".");
  const value = path.length === 0
    ? config.values
    : getPath(config.values, path);
  for (const unknown of unknownKeys(config.values)) {
    if (key === undefined || unknown === key || unknown.startsWith(`${key}.`)) {
      context.io.err(
        `warning: unknown config key "${
          sanitizeLine(unknown)
        }" (kept, not used by jpt)\n`,
      );
    }
  }
  if (value === undefined) {
    context.io.err(`error: config key "${key}" is not set\n`);
    return ExitCode.failure;
  }
  const leaves = flatten(value, path);
  if (options.json) {
    const origins = Object.fromEntries(
      leaves.map(([leaf]) => [leaf, originOf(config.origins, leaf)]),
    );
    context.io.out(formatJson(options.origin ? { value, origins } : value));
    return ExitCode.ok;
  }
  const lines = leaves.map(([leaf, leafValue]) => {
    const line = `${leaf} = ${JSON.stringify(leafValue)}`;
    return sanitizeLine(
      options.origin ? `${line}  # ${originOf(config.origins, leaf)}` : line,
    );
  });
  context.io.out(lines.map((line) => `${line}\n`).join(""));
  return ExitCode.ok;
}

/** Leaves as `[dotted path, value]`; empty tables are leaves too. */
function flatten(value: unknown, path: string[]): Array<[string, unknown]> {
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    return [[path.join("."), value]];
  }
  return Object.entries(value as ConfigTable).flatMap(([key, child]) =>
    flatten(child, [...path, key])
  );
}

function originOf(origins: Map<string, string>, leaf: string): string {
  for (
    let path = leaf;
    path !== "";
    path = path.slice(0, Math.max(path.lastIndexOf("."), 0))
  ) {
    const origin = origins.get(path);
    if (origin !== undefined) return origin;
  }
  return "default";
}
