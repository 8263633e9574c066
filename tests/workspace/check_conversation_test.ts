import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkConversation,
  type CheckedFiles,
} from "../../src/workspace/check_conversation.ts";
import { validateEvents } from "../../src/conversation/validate_events.ts";
import { generateConversation } from "../../bench/generate.ts";

Deno.test("checkConversation() checks a large events.json chunk by chunk, with the same findings", async () => {
  const dir = join(await Deno.makeTempDir(), "17800000000");
  try {
    await Deno.mkdir(dir);
    // Over 32 MiB: checked as it is read, without keeping its entries.
    const bytes = generateConversation(3600, 3000, 5, 3);
    assert.ok(bytes.length > 32 << 20, String(bytes.length));
    // One tool result jp cannot decode, far into the file.
    const text = new TextDecoder().decode(bytes);
    const response = text.lastIndexOf('"type": "tool_call_response"');
    const content = text.indexOf('"content": "', response) + 12;
    bytes[new TextEncoder().encode(text.slice(0, content)).length] = 0x21; // "!"
    await Deno.writeFile(join(dir, "events.json"), bytes);
    await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
    const read: CheckedFiles = {};
    const result = checkConversation(dir, read);
    // No parsed stream is kept; the config deltas are.
    assert.equal(read.stream, undefined);
    assert.ok(read.configDeltas !== undefined);
    const whole = validateEvents(bytes, { legacyLayout: false });
    assert.equal(whole.errors.length, 1);
    assert.match(whole.errors[0]!, /content is not base64 of UTF-8/);
    assert.deepEqual(
      result.errors,
      whole.errors.map((e) => `events.json: ${e}`),
    );
    assert.deepEqual(
      result.warnings,
      whole.warnings.map((w) => `events.json: ${w}`),
    );
  } finally {
    await Deno.remove(join(dir, ".."), { recursive: true });
  }
});

Deno.test({
  name:
    "checkConversation() reads a linked events.json through its link and refuses a FIFO without opening it",
  ignore: Deno.build.os === "windows",
  async fn() {
    const root = await Deno.makeTempDir();
    const dir = join(root, "17800000000");
    try {
      await Deno.mkdir(dir);
      const bytes = generateConversation(3, 200, 9, 3);
      // The events elsewhere, linked (as a user may keep them).
      await Deno.writeFile(join(root, "kept.json"), bytes);
      await Deno.symlink(join(root, "kept.json"), join(dir, "events.json"));
      await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
      // Opening a FIFO for reading would wait for a writer forever.
      const made = await new Deno.Command("mkfifo", {
        args: [join(dir, "metadata.json")],
      }).output();
      assert.ok(made.success);
      const read: CheckedFiles = {};
      const result = checkConversation(dir, read);
      assert.deepEqual(result.errors, [
        `metadata.json: Cannot read "${
          join(dir, "metadata.json")
        }": not a regular file (a FIFO)`,
      ]);
      assert.deepEqual(read.stream?.serialize(), bytes);
      assert.deepEqual(read.baseConfig, new TextEncoder().encode("{}\n"));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
