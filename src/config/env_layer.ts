/**
 * `JP_CFG_*` environment variables: `JP_CFG_` plus the upper-cased dotted
 * path with `.` replaced by `_`, matched against the known field names (so
 * `JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE` finds
 * `conversation.turn_summary.generate.batch_size`). A value starting with `:`
 * is JSON, with `+` is appended or merged; `\:` and `\+` escape them.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type { CfgOperation } from "./cfg_arg.ts";
import {
  ANY_KEY,
  CONFIG_SCHEMA,
  convertText,
  type SchemaNode,
} from "./schema.ts";

const PREFIX = "JP_CFG_";

/** A `JP_CFG_*` variable that cannot be used. */
export class EnvConfigError extends JptError {
  /**
   * @param name The variable.
   * @param detail What is wrong.
   */
  constructor(name: string, detail: string) {
    super(`Invalid environment variable ${name}: ${detail}`);
  }
}

/**
 * Turns the `JP_CFG_*` variables into config operations, sorted by name.
 *
 * @param variables All environment variables.
 * @param prefix `JP_CFG_` (jp's layer) or `JPT_CFG_` (jpt's own settings).
 * @returns One operation per variable, with the variable name.
 * @throws {EnvConfigError} For JSON that does not parse or a value of the wrong type.
 */
export function envOperations(
  variables: Record<string, string>,
  prefix: string = PREFIX,
): Array<{ name: string; operation: CfgOperation }> {
  return Object.keys(variables)
    .filter((name) => name.startsWith(prefix) && name.length > prefix.length)
    .sort()
    .map((name) => ({
      name,
      operation: envOperation(name, prefix, variables[name]!),
    }));
}

function envOperation(
  name: string,
  prefix: string,
  raw: string,
): CfgOperation {
  const tokens = name.slice(prefix.length).toLowerCase().split("_").filter((
    token,
  ) => token !== "");
  const path = matchPath(tokens, CONFIG_SCHEMA)?.path ?? tokens;
  let text = raw;
  let json = false;
  let append = false;
  if (text.startsWith("\\:") || text.startsWith("\\+")) text = text.slice(1);
  else if (text.startsWith(":")) [json, text] = [true, text.slice(1)];
  else if (text.startsWith("+")) [append, text] = [true, text.slice(1)];
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : convertText(path, text);
  } catch (error) {
    throw new EnvConfigError(
      name,
      error instanceof Error ? error.message : String(error),
    );
  }
  return { kind: append ? "append" : "set", path, value };
}

/** The best reading of the tokens as a path: the most known field names. */
function matchPath(
  tokens: string[],
  node: SchemaNode,
): { path: string[]; score: number } | undefined {
  if (tokens.length === 0) return { path: [], score: 0 };
  if (node === "any") return { path: [tokens.join("_")], score: 0 };
  if (typeof node === "string") return undefined;
  let best: { path: string[]; score: number } | undefined;
  for (let k = tokens.length; k >= 1; k--) {
    const key = tokens.slice(0, k).join("_");
    const rest = tokens.slice(k);
    const known = Object.hasOwn(node, key) && key !== ANY_KEY
      ? node[key]
      : undefined;
    const candidates: Array<[SchemaNode | undefined, number]> = [[known, 1], [
      node[ANY_KEY],
      0,
    ]];
    for (const [child, bonus] of candidates) {
      if (child === undefined) continue;
      const sub = matchPath(rest, child);
      if (sub && (best === undefined || sub.score + bonus > best.score)) {
        best = { path: [key, ...sub.path], score: sub.score + bonus };
      }
    }
  }
  return best;
}
