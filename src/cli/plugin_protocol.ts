/**
 * jp's command-plugin protocol, version 1, as jp's host speaks it (dcdpr/jp
 * commit 4c1c39f: `crates/jp_plugin/src/message.rs`,
 * `crates/jp_cli/src/cmd/plugin/dispatch.rs`, RFD 072): one JSON object per
 * line, tagged by `type`, host to plugin on standard input and plugin to
 * host on standard output.
 *
 * Facts the plugin relies on, from `dispatch.rs`:
 * - For `jp -h` and `jp <name> -h` the host writes `{"type":"describe"}`,
 *   closes the plugin's input and reads one line: the `describe` answer.
 * - Otherwise it writes `init` at once and keeps the input open; it answers
 *   `list_conversations`, `read_events` and `read_config` (or `error`) with
 *   the request's `id`, writes a `print`'s `text` to its standard output as
 *   it is (no newline added), logs a `log`, and on `exit` ends with `code`
 *   (`reason` is shown when the code is not 0). `ready` is optional.
 * - On Ctrl-C it writes `shutdown` and kills the plugin 5 s later; the
 *   plugin runs in its own process group, so the signal itself never
 *   reaches it. The plugin's standard error is traced, not shown.
 * - A line it cannot parse as a plugin message ends the run as a failure.
 *
 * @module
 */

/** The protocol version jpt speaks. */
export const PROTOCOL_VERSION = 1;

/** `init`: what jp hands the plugin when it starts the command. */
export interface InitMessage {
  /** The protocol version. */
  version: number;
  /** The workspace. */
  workspace: { root: string; storage: string; id: string };
  /** jp's directories. */
  paths: { user_data?: string; user_config?: string; user_workspace?: string };
  /** jp's fully resolved config. */
  config: Record<string, unknown>;
  /** `[plugins.command.<name>].options`. */
  options: Record<string, unknown>;
  /** The arguments after the command's name. */
  args: string[];
  /** jp's verbosity: 0 error, 1 warn, 2 info, 3 debug, 4 trace. */
  log_level: number;
}

/** One conversation as `list_conversations` returns it. */
export interface ConversationSummary {
  /** The id (deciseconds, decimal text). */
  id: string;
  /** The title, if any. */
  title: string | null;
  /** When it was last activated (RFC 3339). */
  last_activated_at: string;
  /** When it was pinned, if it is. */
  pinned_at?: string;
  /** How many events it holds. */
  events_count: number;
}

/** A message from jp to the plugin. */
export type HostMessage =
  | { type: "init"; init: InitMessage }
  | { type: "describe" }
  | { type: "shutdown" }
  | { type: "conversations"; id?: string; data: ConversationSummary[] }
  | { type: "events"; id?: string; conversation: string; data: unknown[] }
  | { type: "config"; id?: string; path?: string; data: unknown }
  | { type: "error"; id?: string; request?: string; message: string };

/** What jpt tells jp about one of its plugins (`describe`). */
export interface DescribeResponse {
  /** The display name. */
  name: string;
  /** jpt's version. */
  version: string;
  /** One line for `jp -h`. */
  description: string;
  /** The command path (`["turns"]`). */
  command: string[];
  /** The help `jp <name> -h` shows. */
  help: string;
  /** Where jpt lives. */
  repository?: string;
}

/** A message from the plugin to jp. */
export type PluginMessage =
  | { type: "ready" }
  | { type: "list_conversations"; id: string }
  | { type: "read_events"; id: string; conversation: string }
  | { type: "read_config"; id: string; path?: string }
  | {
    type: "print";
    text: string;
    channel: "content" | "chrome" | "error";
    format: "plain";
  }
  | {
    type: "log";
    level: LogLevel;
    message: string;
    fields?: Record<string, unknown>;
  }
  | ({ type: "describe" } & DescribeResponse)
  | { type: "exit"; code: number; reason?: string };

/** jp's log levels, most severe first (their index is the `log_level` that shows them). */
export const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;

/** A log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** A line from jp that is not a protocol message jpt understands. */
export class ProtocolError extends Error {
  /** @param message What was wrong, and with which line. */
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/**
 * Encodes a message as one protocol line.
 *
 * @param message The message.
 * @returns The JSON text and a newline.
 */
export function encodeMessage(message: PluginMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Parses one line from jp.
 *
 * @param line The line, without its newline.
 * @returns The message.
 * @throws {ProtocolError} When the line is not JSON, has no known `type`, or
 *   lacks a field the type requires.
 */
export function parseHostMessage(line: string): HostMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new ProtocolError(
      `not JSON (${(error as Error).message}): ${preview(line)}`,
    );
  }
  if (!isObject(value)) {
    throw new ProtocolError(`not an object: ${preview(line)}`);
  }
  const id = optionalString(value, "id", line);
  const withId = id === undefined ? {} : { id };
  switch (value.type) {
    case "describe":
    case "shutdown":
      return { type: value.type };
    case "init":
      return { type: "init", init: parseInit(value, line) };
    case "conversations":
      return {
        type: "conversations",
        ...withId,
        data: arrayField(value, "data", line).map((item) =>
          parseSummary(item, line)
        ),
      };
    case "events":
      return {
        type: "events",
        ...withId,
        conversation: stringField(value, "conversation", line),
        data: arrayField(value, "data", line),
      };
    case "config": {
      const path = optionalString(value, "path", line);
      if (!("data" in value)) throw missing("data", line);
      return {
        type: "config",
        ...withId,
        ...(path === undefined ? {} : { path }),
        data: value.data,
      };
    }
    case "error": {
      const request = optionalString(value, "request", line);
      return {
        type: "error",
        ...withId,
        ...(request === undefined ? {} : { request }),
        message: stringField(value, "message", line),
      };
    }
    default:
      throw new ProtocolError(
        `unknown message type ${JSON.stringify(value.type)}: ${preview(line)}`,
      );
  }
}

function parseInit(value: Record<string, unknown>, line: string): InitMessage {
  const version = value.version;
  if (typeof version !== "number" || !Number.isInteger(version)) {
    throw missing("version", line);
  }
  const workspace = value.workspace;
  if (!isObject(workspace)) throw missing("workspace", line);
  const paths = value.paths === undefined ? {} : value.paths;
  if (!isObject(paths)) throw missing("paths", line);
  const config = value.config;
  if (!isObject(config)) throw missing("config", line);
  const options = value.options === undefined ? {} : value.options;
  if (!isObject(options)) throw missing("options", line);
  const args = value.args === undefined ? [] : value.args;
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw missing("args", line);
  }
  const logLevel = value.log_level === undefined ? 0 : value.log_level;
  if (typeof logLevel !== "number") throw missing("log_level", line);
  const pathEntries = Object.fromEntries(
    ["user_data", "user_config", "user_workspace"].flatMap((key) => {
      const entry = optionalString(paths, key, line);
      return entry === undefined ? [] : [[key, entry]];
    }),
  );
  return {
    version,
    workspace: {
      root: stringField(workspace, "root", line),
      storage: stringField(workspace, "storage", line),
      id: stringField(workspace, "id", line),
    },
    paths: pathEntries,
    config,
    options,
    args,
    log_level: logLevel,
  };
}

function parseSummary(item: unknown, line: string): ConversationSummary {
  if (!isObject(item)) throw missing("data[]", line);
  const title = item.title ?? null;
  if (title !== null && typeof title !== "string") throw missing("title", line);
  const pinned = optionalString(item, "pinned_at", line);
  const count = item.events_count;
  if (typeof count !== "number") throw missing("events_count", line);
  return {
    id: stringField(item, "id", line),
    title,
    last_activated_at: stringField(item, "last_activated_at", line),
    ...(pinned === undefined ? {} : { pinned_at: pinned }),
    events_count: count,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringField(
  value: Record<string, unknown>,
  key: string,
  line: string,
): string {
  const field = value[key];
  if (typeof field !== "string") throw missing(key, line);
  return field;
}

function optionalString(
  value: Record<string, unknown>,
  key: string,
  line: string,
): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== "string") throw missing(key, line);
  return field;
}

function arrayField(
  value: Record<string, unknown>,
  key: string,
  line: string,
): unknown[] {
  const field = value[key];
  if (!Array.isArray(field)) throw missing(key, line);
  return field;
}

function missing(key: string, line: string): ProtocolError {
  return new ProtocolError(
    `"${key}" is missing or of the wrong type: ${preview(line)}`,
  );
}

function preview(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
