/**
 * A stand-in for jp's plugin host, written from jp's source (dcdpr/jp commit
 * 4c1c39f, `crates/jp_cli/src/cmd/plugin/dispatch.rs` and
 * `crates/jp_plugin/src/message.rs`), so the tests drive jpt's plugins the
 * way jp does:
 *
 * - `describe`: write `{"type":"describe"}`, close the plugin's input, read
 *   one line.
 * - a run: write `init` and keep the input open; answer
 *   `list_conversations`, `read_events` and `read_config` with the request's
 *   `id` (or an `error`); collect `print` texts and `log`s; end at `exit`. A
 *   line that is not a plugin message ends the run as jp's does (an error);
 *   the plugin's end of output without `exit` is a failure unless
 *   `shutdown` was sent.
 * - `shutdown`: write `{"type":"shutdown"}` and kill the plugin 5 s later if
 *   it is still running (jp's grace period).
 *
 * @module
 */

import { join } from "node:path";

/** Every message type a plugin may send (jp's `PluginToHost`). */
const PLUGIN_TYPES = new Set([
  "ready",
  "list_conversations",
  "read_events",
  "read_config",
  "print",
  "log",
  "describe",
  "exit",
]);

/** How a run ended, and everything the plugin said. */
export interface HostRun {
  /** The exit code jp would end with. */
  code: number;
  /** The `exit` reason (or the host's own error). */
  reason: string | undefined;
  /** Every line the plugin wrote to standard output, parsed. */
  transcript: Array<Record<string, unknown>>;
  /** The `print` texts on the `content` channel, joined. */
  content: string;
  /** The `print` texts on other channels, joined. */
  chrome: string;
  /** The `log` messages. */
  logs: Array<{ level: string; message: string }>;
  /** The requests the plugin made, by type. */
  requests: string[];
  /** Whether the host had to kill the plugin after `shutdown`. */
  killed: boolean;
  /** The plugin's standard error (jp traces it). */
  stderr: string;
}

/** What the host sends in `init`. */
export interface HostInit {
  /** The workspace root. */
  root: string;
  /** jp's resolved config. */
  config?: Record<string, unknown>;
  /** `[plugins.command.<name>].options`. */
  options?: Record<string, unknown>;
  /** The arguments after the command. */
  args?: string[];
  /** jp's verbosity (0 error … 4 trace). */
  logLevel?: number;
  /** jp's user data directory. */
  userData?: string;
  /** Answer no request (a jp that never answers). */
  silent?: boolean;
}

/** A running plugin. */
export class PluginRun {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #done: Promise<HostRun>;
  #shutdownSent = false;
  #killed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #requests: string[] = [];

  /**
   * Starts the plugin and sends `init`.
   *
   * @param command The plugin executable and its arguments.
   * @param env Its environment.
   * @param init What `init` holds.
   * @param firstLine Replaces the `init` line (malformed-message tests).
   */
  constructor(
    command: string[],
    env: Record<string, string>,
    init: HostInit,
    firstLine?: string,
  ) {
    this.#child = new Deno.Command(command[0]!, {
      args: command.slice(1),
      cwd: init.root,
      clearEnv: true,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const initLine = firstLine ?? JSON.stringify({
      type: "init",
      version: 1,
      workspace: {
        root: init.root,
        storage: join(init.root, ".jp"),
        id: "abcde",
      },
      paths: init.userData === undefined ? {} : { user_data: init.userData },
      config: init.config ?? {},
      ...(init.options === undefined ? {} : { options: init.options }),
      args: init.args ?? [],
      log_level: init.logLevel ?? 0,
    });
    this.send(initLine);
    this.#done = this.#loop(init);
  }

  /**
   * Writes one line to the plugin.
   *
   * @param line The line, without its newline.
   */
  send(line: string): void {
    void this.#writer.write(new TextEncoder().encode(`${line}\n`)).catch(
      () => {},
    );
  }

  /** Sends `shutdown`, and kills the plugin 5 s later if it still runs (jp's grace). */
  shutdown(): void {
    this.#shutdownSent = true;
    this.send(JSON.stringify({ type: "shutdown" }));
    this.#timer = setTimeout(() => {
      this.#killed = true;
      this.#kill();
    }, 5000);
  }

  #kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** The requests made so far. */
  get requests(): readonly string[] {
    return this.#requests;
  }

  /**
   * Waits for the run to end.
   *
   * @returns How it ended.
   */
  result(): Promise<HostRun> {
    return this.#done;
  }

  async #loop(init: HostInit): Promise<HostRun> {
    const transcript: Array<Record<string, unknown>> = [];
    let content = "";
    let chrome = "";
    const logs: Array<{ level: string; message: string }> = [];
    let exit: { code: number; reason: string | undefined } | undefined;
    let hostError: string | undefined;
    const stderr = new Response(this.#child.stderr).text();
    // A plugin that never ends would hang jp: here it fails the test instead.
    const hang = setTimeout(() => this.#kill(), 60_000);
    for await (const line of lines(this.#child.stdout)) {
      if (line.trim() === "") continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        hostError = `invalid plugin message: ${line}`;
        break;
      }
      if (!PLUGIN_TYPES.has(message.type as string)) {
        hostError = `invalid plugin message: ${line}`;
        break;
      }
      transcript.push(message);
      switch (message.type) {
        case "list_conversations":
        case "read_events":
        case "read_config":
          this.#requests.push(message.type);
          if (!init.silent) {
            this.send(JSON.stringify(await answer(message, init)));
          }
          break;
        case "print":
          if ((message.channel ?? "content") === "content") {
            content += message.text;
          } else chrome += message.text;
          break;
        case "log":
          logs.push({
            level: message.level as string,
            message: message.message as string,
          });
          break;
        case "exit":
          exit = {
            code: message.code as number,
            reason: message.reason as string | undefined,
          };
          break;
      }
      if (exit !== undefined) break;
    }
    // jp waits for the plugin to end; a plugin it could not read is ended here.
    if (hostError !== undefined) this.#kill();
    const status = await this.#child.status;
    clearTimeout(this.#timer);
    clearTimeout(hang);
    if (
      status.signal === "SIGKILL" && !this.#killed && hostError === undefined
    ) {
      hostError = "the plugin did not end within 60 s";
    }
    await this.#writer.close().catch(() => {});
    const code = exit?.code ??
      (hostError !== undefined ? 1 : this.#shutdownSent ? 0 : 1);
    return {
      code,
      reason: exit?.reason ?? hostError ??
        (this.#shutdownSent
          ? undefined
          : "plugin exited unexpectedly without sending exit message"),
      transcript,
      content,
      chrome,
      logs,
      requests: this.#requests,
      killed: this.#killed,
      stderr: await stderr,
    };
  }
}

/**
 * Asks a plugin to describe itself, as `jp -h` does.
 *
 * @param command The plugin executable and its arguments.
 * @param env Its environment.
 * @returns The one line it answered, parsed.
 */
export async function describePlugin(
  command: string[],
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const child = new Deno.Command(command[0]!, {
    args: command.slice(1),
    clearEnv: true,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode('{"type":"describe"}\n'));
  await writer.close();
  const output = await child.output();
  const first = new TextDecoder().decode(output.stdout).split("\n")[0]!;
  return JSON.parse(first);
}

/** jp's answer to a request (dispatch.rs's handlers). */
async function answer(
  message: Record<string, unknown>,
  init: HostInit,
): Promise<Record<string, unknown>> {
  const id = message.id;
  const conversations = join(init.root, ".jp", "conversations");
  if (message.type === "list_conversations") {
    const data = [];
    for await (const entry of Deno.readDir(conversations)) {
      if (entry.name.startsWith(".") || !entry.isDirectory) continue;
      const dir = join(conversations, entry.name);
      const metadata = JSON.parse(
        await Deno.readTextFile(join(dir, "metadata.json")),
      );
      const events = JSON.parse(
        await Deno.readTextFile(join(dir, "events.json")),
      );
      data.push({
        id: entry.name.split("-")[0],
        title: metadata.title ?? null,
        last_activated_at: metadata.last_activated_at,
        events_count: events.length,
      });
    }
    return { type: "conversations", id, data };
  }
  if (message.type === "read_events") {
    for await (const entry of Deno.readDir(conversations)) {
      if (entry.name.split("-")[0] !== message.conversation) continue;
      const events = JSON.parse(
        await Deno.readTextFile(join(conversations, entry.name, "events.json")),
      );
      return {
        type: "events",
        id,
        conversation: message.conversation,
        data: events,
      };
    }
    return {
      type: "error",
      id,
      request: "read_events",
      message: `conversation not found: ${message.conversation}`,
    };
  }
  let current: unknown = init.config ?? {};
  const path = message.path as string | undefined;
  for (const segment of path?.split(".") ?? []) {
    current = (current as Record<string, unknown> | undefined)?.[segment];
    if (current === undefined) {
      return {
        type: "error",
        id,
        request: "read_config",
        message: `config path not found: ${path}`,
      };
    }
  }
  return { type: "config", id, ...(path ? { path } : {}), data: current };
}

async function* lines(stream: ReadableStream<Uint8Array>) {
  let buffered = "";
  // Typed as the decoder it is (Node's types in the graph read it wider).
  const decoder = new TextDecoderStream() as unknown as TransformStream<
    Uint8Array,
    string
  >;
  for await (const text of stream.pipeThrough(decoder)) {
    buffered += text;
    let end: number;
    while ((end = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
  if (buffered !== "") yield buffered;
}
