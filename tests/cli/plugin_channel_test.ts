import assert from "node:assert/strict";
import {
  HostGoneError,
  HostRequestError,
  MAX_LINE_CHARS,
  PluginChannel,
} from "../../src/cli/plugin_channel.ts";
import { ProtocolError } from "../../src/cli/plugin_protocol.ts";

/**
 * A channel whose host end is in memory: `written` holds what the plugin
 * sent; `answer` is called with each request and returns jp's line.
 */
function channelWith(answer: (request: Record<string, unknown>) => string) {
  const written: Array<Record<string, unknown>> = [];
  let push!: (line: string) => void;
  let end!: () => void;
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (line) => controller.enqueue(new TextEncoder().encode(line));
      end = () => controller.close();
    },
  });
  const channel = new PluginChannel(input, (text) => {
    assert.ok(text.endsWith("\n"), "one message per line");
    const message = JSON.parse(text);
    written.push(message);
    if (
      String(message.type).startsWith("list") ||
      String(message.type).startsWith("read")
    ) {
      const line = answer(message);
      // "": jp never answers (it went away).
      if (line !== "") queueMicrotask(() => push(`${line}\n`));
    }
  });
  return { channel, written, push, end };
}

/** Reads host messages in the background, as the plugin's run does. */
function reading(channel: PluginChannel) {
  const seen: unknown[] = [];
  const done = (async () => {
    try {
      while (true) {
        const message = await channel.next();
        if (message === undefined) return;
        seen.push(message);
      }
    } catch (error) {
      seen.push(error);
    }
  })();
  return { seen, done };
}

Deno.test("every request type is sent with an id and resolved by jp's answer to that id", async () => {
  const { channel, written, end } = channelWith((request) => {
    switch (request.type) {
      case "list_conversations":
        return JSON.stringify({
          type: "conversations",
          id: request.id,
          data: [{
            id: "17758406187",
            title: null,
            last_activated_at: "2026-01-01T00:00:00Z",
            events_count: 4,
          }],
        });
      case "read_events":
        return JSON.stringify({
          type: "events",
          id: request.id,
          conversation: request.conversation,
          data: [{ type: "turn_start" }],
        });
      default:
        return request.path === "assistant.model"
          ? JSON.stringify({
            type: "config",
            id: request.id,
            path: request.path,
            data: { id: "ollama/x" },
          })
          : JSON.stringify({
            type: "error",
            id: request.id,
            request: "read_config",
            message: `config path not found: ${request.path}`,
          });
    }
  });
  const { done } = reading(channel);
  const [list, events, config] = await Promise.all([
    channel.listConversations(),
    channel.readEvents("17758406187"),
    channel.readConfig("assistant.model"),
  ]);
  assert.equal(list[0]!.id, "17758406187");
  assert.deepEqual(events, [{ type: "turn_start" }]);
  assert.deepEqual(config, { id: "ollama/x" });
  await assert.rejects(
    channel.readConfig("no.such"),
    (error) =>
      error instanceof HostRequestError &&
      /config path not found: no.such/.test(error.message),
  );
  const ids = written.map((message) => message.id);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
  assert.deepEqual(written.map((message) => message.type), [
    "list_conversations",
    "read_events",
    "read_config",
    "read_config",
  ]);
  end();
  await done;
});

Deno.test("requests fail when jp closes the input, and a malformed line is an error, never a wait", async () => {
  const { channel, end } = channelWith(() => "");
  const pending = channel.readEvents("1");
  const { seen, done } = reading(channel);
  end();
  await assert.rejects(pending, HostGoneError);
  await done;
  assert.deepEqual(seen, []);
  await assert.rejects(channel.listConversations(), HostGoneError);

  const second = channelWith(() => "");
  const background = reading(second.channel);
  second.push('{"type":"events","id":"x"}\n');
  await background.done;
  assert.ok(background.seen[0] instanceof ProtocolError);
  assert.match(String(background.seen[0]), /"conversation" is missing/);
  await assert.rejects(second.channel.readConfig(), HostGoneError);
});

Deno.test("an answer nobody asked for is handed to the caller to judge", async () => {
  const { channel, push, end } = channelWith(() => "");
  push('{"type":"config","data":{}}\n{"type":"shutdown"}\n');
  assert.deepEqual(await channel.next(), { type: "config", data: {} });
  assert.deepEqual(await channel.next(), { type: "shutdown" });
  end();
  assert.equal(await channel.next(), undefined);
});

Deno.test("a line from jp is read across many pieces, and one over the bound ends the run with an error, never a wait", async () => {
  const { channel, push, end } = channelWith(() => "");
  const background = reading(channel);
  // One message in 1,000 pieces.
  const line = JSON.stringify({
    type: "shutdown",
    padding: "x".repeat(100_000),
  });
  for (let i = 0; i < line.length; i += 100) push(line.slice(i, i + 100));
  push("\n");
  const big = channelWith(() => "");
  const failing = reading(big.channel);
  const pending = big.channel.readConfig();
  const piece = "y".repeat(1024 * 1024);
  for (let i = 0; i * piece.length <= MAX_LINE_CHARS; i++) big.push(piece);
  await failing.done;
  assert.ok(failing.seen[0] instanceof ProtocolError, String(failing.seen[0]));
  assert.match(String(failing.seen[0]), /longer than/);
  await assert.rejects(pending, HostGoneError);
  end();
  await background.done;
  assert.equal(background.seen.length, 1);
  assert.equal((background.seen[0] as { type: string }).type, "shutdown");
});
