/**
 * `--cfg` values (storage reference 7): `@file`, `{json}`, a bare file path or
 * named config, `key=value`, `key:=<json>`, `key+=value` and `key:+=<json>`.
 *
 * @module
 */

import { ExitCode, JptError } from "../errors/jpt_error.ts";
import { convertText } from "./schema.ts";

/** What one `--cfg` value does to the config. */
export type CfgOperation =
  | { kind: "file"; path: string; named: boolean }
  | { kind: "merge"; value: Record<string, unknown> }
  | { kind: "set"; path: string[]; value: unknown }
  | { kind: "append"; path: string[]; value: unknown };

/** A `--cfg` value that cannot be understood; a usage error. */
export class CfgSyntaxError extends JptError {
  /**
   * @param arg The value given.
   * @param detail What is wrong.
   */
  constructor(arg: string, detail: string) {
    super(`Invalid --cfg ${JSON.stringify(arg)}: ${detail}`, {
      exitCode: ExitCode.usage,
    });
  }
}

const KEY = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

/**
 * Parses one `--cfg` value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCfgArg } from "./cfg_arg.ts";
 * assert.deepEqual(parseCfgArg("conversation.title.generate.auto=false"), {
 *   kind: "set",
 *   path: ["conversation", "title", "generate", "auto"],
 *   value: false,
 * });
 * ```
 *
 * @param arg The value after `--cfg`.
 * @returns The operation.
 * @throws {CfgSyntaxError} For malformed JSON or keys.
 * @throws {ConfigValueError} When a `key=value` does not fit the field's type.
 */
export function parseCfgArg(arg: string): CfgOperation {
  if (arg.startsWith("@")) {
    return { kind: "file", path: arg.slice(1), named: false };
  }
  if (arg.trimStart().startsWith("{")) {
    const value = parseJson(arg, arg);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new CfgSyntaxError(arg, "expected a JSON object");
    }
    return { kind: "merge", value: value as Record<string, unknown> };
  }
  const equals = arg.indexOf("=");
  if (equals < 0) {
    return {
      kind: "file",
      path: arg,
      named: !/[\\/]/.test(arg) && !/\.\w+$/.test(arg),
    };
  }
  let key = arg.slice(0, equals);
  const text = arg.slice(equals + 1);
  let json = false;
  let append = false;
  if (key.endsWith(":+")) {
    [json, append, key] = [true, true, key.slice(0, -2)];
  } else if (key.endsWith("+")) {
    [append, key] = [true, key.slice(0, -1)];
  } else if (key.endsWith(":")) {
    [json, key] = [true, key.slice(0, -1)];
  }
  if (!KEY.test(key)) {
    throw new CfgSyntaxError(arg, `"${key}" is not a dotted key`);
  }
  const path = key.split(".");
  const value = json ? parseJson(text, arg) : convertText(path, text);
  return { kind: append ? "append" : "set", path, value };
}

function parseJson(text: string, arg: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CfgSyntaxError(
      arg,
      `invalid JSON (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
}
