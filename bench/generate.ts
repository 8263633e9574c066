/**
 * Generates large synthetic conversations in jp's format (G4, every entry
 * with an event id) with realistic sizes: each turn has a request, a few tool
 * calls whose base64 results are file reads of several KB, and a response.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Deterministic pseudo-random numbers (so every run measures the same bytes). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS =
  ("the stream handler retries each request with exponential backoff until the budget runs out " +
    "and then reports a clear error naming the file and the byte offset of the problem in events json")
    .split(" ");

function prose(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    out.push(WORDS[Math.floor(next() * WORDS.length)]!);
  }
  return out.join(" ");
}

/**
 * Builds the bytes of a conversation of `turns` turns.
 *
 * @param turns The number of turns.
 * @param toolBytes Approximate size of each tool result before base64.
 * @param seed Another seed gives other texts (default: the turn count).
 * @param summarized How many turns, from the first, carry a summary.
 * @returns The `events.json` bytes.
 */
export function generateConversation(
  turns: number,
  toolBytes = 3000,
  seed = turns,
  summarized = 0,
): Uint8Array {
  const next = random(seed);
  const parts: string[] = [];
  const entry = (value: Record<string, unknown>) =>
    parts.push(JSON.stringify(value, null, 2).replaceAll("\n", "\n  "));
  let id = 0;
  const eventId = () => (id++).toString(36).padStart(7, "0");
  let second = 0;
  const stamp = () => {
    second++;
    const date = new Date(
      Date.UTC(2026, 0, 1) + second * 1000 + Math.floor(next() * 1000),
    );
    return date.toISOString().replace("T", " ").replace("Z", "").replace(
      /\.?0+$/,
      "",
    ) + (date.getUTCMilliseconds() === 0 ? ".0" : "");
  };
  for (let t = 0; t < turns; t++) {
    entry({
      event_id: eventId(),
      timestamp: stamp(),
      type: "turn_start",
      ...(t < summarized ? { summary: `Label turn ${t}` } : {}),
    });
    entry({
      event_id: eventId(),
      timestamp: stamp(),
      type: "chat_request",
      content: `${prose(next, 20)}\n\n${prose(next, 40)}`,
    });
    const tools = 1 + Math.floor(next() * 3);
    for (let k = 0; k < tools; k++) {
      const call = `call_${t}_${k}`;
      entry({
        event_id: eventId(),
        timestamp: stamp(),
        type: "tool_call_request",
        id: call,
        name: "fs_read_file",
        arguments: { path: btoa(`src/module_${t}_${k}.rs`) },
      });
      const body = prose(next, Math.floor(toolBytes / 6));
      entry({
        event_id: eventId(),
        timestamp: stamp(),
        type: "tool_call_response",
        id: call,
        content: encoder.encode(body).toBase64(),
        is_error: false,
      });
    }
    entry({
      event_id: eventId(),
      timestamp: stamp(),
      type: "chat_response",
      message: `${prose(next, 60)}\n\n- ${prose(next, 10)}\n- ${
        prose(next, 10)
      }`,
    });
  }
  return encoder.encode(
    parts.length === 0 ? "[]\n" : `[\n  ${parts.join(",\n  ")}\n]\n`,
  );
}
