import assert from "node:assert/strict";
import { join } from "node:path";
import { validateEvents } from "../../src/conversation/validate_events.ts";
import { validateEventsFile } from "../../src/workspace/validate_events_file.ts";
import { generateConversation } from "../../bench/generate.ts";
import { fixtureConversations, testdata } from "../support/paths.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** jp's layout of a list of entries. */
const laidOut = (entries: unknown[]) => `${JSON.stringify(entries, null, 2)}\n`;

/** What a report says, without the parsed stream. */
function findings(
  report: {
    errors: string[];
    warnings: string[];
    configDeltas?: Array<{ index: number }>;
  },
) {
  return {
    errors: report.errors,
    warnings: report.warnings,
    configDeltas: report.configDeltas?.map(({ index }) => index),
  };
}

/**
 * Checks a file both ways: whole, and in chunks of several sizes (entries
 * and multi-byte characters cut across reads). `streamed` says whether the
 * chunked check takes the file at all.
 */
async function assertSameFindings(
  bytes: Uint8Array,
  streamed: boolean,
  legacyLayout = false,
) {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "events.json");
    await Deno.writeFile(path, bytes);
    const whole = findings(validateEvents(bytes, { legacyLayout }));
    // Reads of a byte or a few cut every character and separator somewhere
    // (on small files: on large ones they take long).
    const sizes = bytes.length < 20_000 ? [1, 7, 64, 4096] : [4096, 65_536];
    for (const chunkBytes of [...sizes, 1 << 20]) {
      const report = validateEventsFile(path, { legacyLayout, chunkBytes });
      if (!streamed) {
        assert.equal(report, undefined, `${chunkBytes}: ${decode(bytes)}`);
        continue;
      }
      assert.ok(report !== undefined, `${chunkBytes}: ${decode(bytes)}`);
      assert.deepEqual(findings(report), whole, `chunks of ${chunkBytes}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const at = (second: number) => `2026-01-01 00:00:0${second}.0`;

Deno.test("validateEventsFile() finds what validateEvents() finds in jp's files", async () => {
  for (const name of ["g1", "g2", "g3", "g4", "escapes", "event_ids"]) {
    const bytes = Deno.readFileSync(testdata("streams", `${name}.json`));
    await assertSameFindings(bytes, true, name < "g3");
  }
  for (const dir of fixtureConversations()) {
    const bytes = Deno.readFileSync(join(dir, "events.json"));
    const legacy = !(await Deno.stat(join(dir, "base_config.json")).then(
      () => true,
      () => false,
    ));
    await assertSameFindings(bytes, true, legacy);
  }
  await assertSameFindings(generateConversation(6, 200, 3, 2), true);
});

Deno.test("validateEventsFile() reports each problem as validateEvents() does, in the same order", async () => {
  const entries: Record<string, unknown>[] = [
    { timestamp: at(0), type: "config_delta", delta: { conversation: {} } },
    {
      event_id: "a",
      timestamp: at(1),
      type: "turn_start",
      summary: "two\nlines",
    },
    {
      event_id: "a",
      timestamp: "yesterday",
      type: "chat_request",
      content: "é x",
    },
    {
      timestamp: at(2),
      type: "tool_call_request",
      id: "c1",
      name: "n",
      arguments: { p: "not base64!" },
    },
    {
      timestamp: at(3),
      type: "tool_call_response",
      id: "c2",
      content: "Pz8_",
      is_error: false,
    },
    { timestamp: at(4), type: "turn_start", summary: null },
    { timestamp: at(5), type: "chat_response", message: "😀" },
    { timestamp: at(6), type: "chat_request", schema: 3 },
    { timestamp: at(7), type: "turn_start" },
  ];
  // Each kind of finding is there to compare.
  const whole = validateEvents(encode(laidOut(entries)), {
    legacyLayout: true,
  });
  assert.equal(whole.errors.length, 5);
  assert.equal(whole.warnings.length, 6);
  assert.match(whole.warnings.at(-1)!, /Turn at index 2 has no chat_request/);
  await assertSameFindings(encode(laidOut(entries)), true, true);
  // Not in jp's key order: the first difference, in an entry cut across reads.
  const reordered = laidOut(entries).replace(
    '"type": "chat_response",\n    "message"',
    '"message": "😀",\n    "type": "chat_response",\n    "x"',
  );
  await assertSameFindings(encode(reordered), true);
  // A number jp writes otherwise, and a missing final newline.
  await assertSameFindings(
    encode(laidOut([{ timestamp: at(0), type: "x_event", n: 1.5e300 }])),
    true,
  );
  await assertSameFindings(encode(laidOut(entries).trimEnd()), true);
});

Deno.test("validateEventsFile() leaves other files to the whole-file check", async () => {
  const one = [{ timestamp: at(0), type: "turn_start" }];
  const cases = [
    "[]\n",
    JSON.stringify(one),
    `\ufeff${laidOut(one)}`,
    laidOut(one).replace("]\n", "] x"),
    // More after the end, in a later read than the end itself.
    `${laidOut(one)}${" ".repeat(5000)}x`,
    laidOut([{ timestamp: at(0) }]),
    laidOut([...one, ...one]).replace(",\n  {", ",\n  7,\n  {"),
  ];
  for (const text of cases) await assertSameFindings(encode(text), false);
  // Entries cut where jp cuts them, but not written as jp writes them: the
  // chunked check takes them and finds the same.
  await assertSameFindings(
    encode(laidOut(one).replace('"type"', '"type" ')),
    true,
  );
  // Invalid UTF-8.
  const bytes = encode(
    laidOut([{ timestamp: at(0), type: "turn_start", summary: "ab" }]),
  );
  bytes[bytes.indexOf(0x61)] = 0xff;
  await assertSameFindings(bytes, false);
});
