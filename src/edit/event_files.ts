/**
 * One file per event for the interactive editor: what a file holds for each
 * entry type, and how an edited file becomes an entry again. A file whose
 * text is unchanged always maps back to the original entry, bytes and all.
 *
 * @module
 */

import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import {
  decodeBase64Leaves,
  decodeBase64Text,
  encodeBase64Text,
} from "../conversation/base64_field.ts";
import { Entry } from "../conversation/entry.ts";
import { parseJsonOrdered } from "../conversation/json_parse.ts";
import {
  fromPlain,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../conversation/json_value.ts";
import { writeJsonPretty } from "../conversation/json_write.ts";
import { PlanError } from "./plan_error.ts";

/** An entry laid out as a file. */
export interface EventFile {
  /** The file name, e.g. `003-tool-call-fs_read_file.md`. */
  name: string;
  /** The file content as written (edits are compared with it). */
  content: string;
}

/**
 * Lays an entry out as a file named after its position and kind.
 *
 * @param entry The entry (not a `turn_start`: turns are plan headers).
 * @param position Its number in the plan (three digits, counting from 0).
 * @returns The file.
 */
export function eventFile(entry: Entry, position: number): EventFile {
  const prefix = String(position).padStart(3, "0");
  const data = entry.data();
  const name = (kind: string, extension: string) =>
    `${prefix}-${kind}.${extension}`;
  const safe = (text: unknown) =>
    String(text).replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 60);
  switch (entry.type) {
    case "chat_request":
      return {
        name: name("request", "md"),
        content: withNewline(String(data.content)),
      };
    case "chat_response":
      if (typeof data.message === "string") {
        return {
          name: name("message", "md"),
          content: withNewline(data.message),
        };
      }
      if (typeof data.reasoning === "string") {
        return {
          name: name("reasoning", "md"),
          content: withNewline(data.reasoning),
        };
      }
      return {
        name: name("structured", "json"),
        content: JSON.stringify(data.data ?? null, null, 2) + "\n",
      };
    case "tool_call_request":
      return {
        name: name(`tool-call-${safe(data.name)}`, "md"),
        content:
          JSON.stringify(decodeBase64Leaves(data.arguments ?? {}), null, 2) +
          "\n",
      };
    case "tool_call_response": {
      const content = String(data.content);
      return {
        name: name(`tool-result-${safe(toolNameOf(entry))}`, "md"),
        content: withNewline(decodeBase64Text(content) ?? content),
      };
    }
    case "config_delta": {
      const delta = typeof data.delta === "object" && data.delta !== null
        ? data.delta
        : undefined;
      if (delta !== undefined) {
        try {
          return {
            name: name("config-delta", "toml"),
            content: withNewline(stringifyToml(delta)),
          };
        } catch {
          // TOML cannot hold every JSON value (null): JSON then.
        }
      }
      return {
        name: name("config-delta", "json"),
        content: writeJsonPretty(entry.tree()) + "\n",
      };
    }
    default:
      return {
        // The type comes from the file: never let it become a path.
        name: name(safe(entry.type).replaceAll("_", "-"), "json"),
        content: writeJsonPretty(entry.tree()) + "\n",
      };
  }
}

/** Tool names of results, filled in by the layout from their calls. */
const toolNames = new WeakMap<Entry, string>();

/**
 * Records the tool name a result belongs to (results carry only the call id).
 *
 * @param result The `tool_call_response` entry.
 * @param name The tool's name.
 */
export function rememberToolName(result: Entry, name: string): void {
  toolNames.set(result, name);
}

function toolNameOf(entry: Entry): string {
  return toolNames.get(entry) ?? "unknown";
}

/**
 * The entry an edited file stands for: the original entry when the text is
 * unchanged, otherwise the original rebuilt with the new content (same
 * `event_id` and `timestamp`).
 *
 * @param original The entry the file was laid out from.
 * @param file The file as laid out.
 * @param edited The file's text after the editor.
 * @returns The entry.
 * @throws {PlanError} When an edited JSON or TOML file does not parse, naming the file.
 */
export function entryFromFile(
  original: Entry,
  file: EventFile,
  edited: string,
): Entry {
  if (withoutNewline(edited) === withoutNewline(file.content)) return original;
  const tree = original.tree();
  const text = withoutNewline(edited);
  try {
    switch (original.type) {
      case "chat_request":
        tree.set("content", text);
        break;
      case "chat_response":
        if (file.name.includes("-message.")) tree.set("message", text);
        else if (file.name.includes("-reasoning.")) tree.set("reasoning", text);
        else tree.set("data", parseJsonOrdered(edited));
        break;
      case "tool_call_request":
        tree.set("arguments", encodeLeaves(parseJsonOrdered(edited)));
        break;
      case "tool_call_response":
        tree.set("content", encodeBase64Text(text));
        break;
      case "config_delta":
        if (file.name.endsWith(".toml")) {
          tree.set("delta", fromPlain(parseToml(edited)));
        } else return Entry.fromTree(requireObject(parseJsonOrdered(edited)));
        break;
      default:
        return Entry.fromTree(requireObject(parseJsonOrdered(edited)));
    }
  } catch (error) {
    throw new PlanError(
      `${file.name}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return Entry.fromTree(tree);
}

function encodeLeaves(value: JsonValue): JsonValue {
  if (typeof value === "string") return encodeBase64Text(value);
  if (Array.isArray(value)) return value.map(encodeLeaves);
  if (isJsonObject(value)) {
    return new Map(
      [...value].map(([key, member]) => [key, encodeLeaves(member)]),
    );
  }
  return value;
}

function requireObject(value: JsonValue): JsonObject {
  if (!isJsonObject(value)) throw new SyntaxError("Expected a JSON object");
  return value;
}

function withNewline(text: string): string {
  return `${text}\n`;
}

/** Editors add a final newline on save; one is ignored. */
function withoutNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
