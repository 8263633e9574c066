/**
 * Compatibility suite over real conversations written by jp
 * (`../shared/fixtures/jp-conversations`); skipped with a notice when absent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationMetadata } from "../../src/conversation/metadata.ts";
import { parseJsonOrdered } from "../../src/conversation/json_parse.ts";
import { writeJsonPretty } from "../../src/conversation/json_write.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { fixtureConversations, FIXTURES_DIR } from "../support/paths.ts";

const ignore = FIXTURES_DIR === undefined;
const decoder = new TextDecoder();

Deno.test({
  name: "every fixture JSON file round-trips byte for byte",
  ignore,
  fn() {
    let files = 0;
    for (const dir of fixtureConversations()) {
      const events = Deno.readFileSync(join(dir, "events.json"));
      assert.deepEqual(
        ConversationStream.parse(events).serialize(),
        events,
        `${dir}/events.json`,
      );
      const metadata = Deno.readFileSync(join(dir, "metadata.json"));
      assert.deepEqual(
        ConversationMetadata.parse(metadata).serialize(),
        metadata,
        `${dir}/metadata.json`,
      );
      files += 2;
      for (const name of ["events.json", "metadata.json", "base_config.json"]) {
        let text: string;
        try {
          text = Deno.readTextFileSync(join(dir, name));
        } catch {
          continue;
        }
        // jp's writer, applied to the parsed file, reproduces it exactly.
        assert.equal(
          writeJsonPretty(parseJsonOrdered(text)) + "\n",
          text,
          `${dir}/${name} through jpt's writer`,
        );
        if (name === "base_config.json") files++;
      }
    }
    assert.equal(files, 19, "all 19 fixture files were read");
  },
});

Deno.test({
  name:
    "summarizing every turn of every fixture changes only turn_start entries",
  ignore,
  fn() {
    for (const dir of fixtureConversations()) {
      const original = ConversationStream.parse(
        Deno.readFileSync(join(dir, "events.json")),
      );
      const stream = ConversationStream.parse(
        Deno.readFileSync(join(dir, "events.json")),
      );
      const expected = new Map<string, string>();
      stream.turns().forEach((turn) => {
        const id = stream.ensureTurnId(turn.index)!;
        const summary = `Summary of turn ${turn.index} in ${dir.slice(-12)}`;
        assert.ok(
          stream.setTurnSummary(id, summary),
          `${dir} turn ${turn.index}`,
        );
        expected.set(id, summary);
      });
      const others = (s: ConversationStream) =>
        s.entries.filter((entry) => entry.type !== "turn_start").map((entry) =>
          decoder.decode(entry.bytes)
        );
      const reread = ConversationStream.parse(stream.serialize());
      assert.deepEqual(
        others(reread),
        others(original),
        `${dir}: non-turn_start entries keep their bytes`,
      );
      assert.equal(
        reread.turns().length,
        original.turns().length,
        `${dir}: same turns`,
      );
      assert.deepEqual(
        new Map(reread.turns().map((turn) => [turn.id!, turn.summary!])),
        expected,
        `${dir}: summaries read back`,
      );
      const originalStarts = original.entries.filter((entry) =>
        entry.type === "turn_start"
      );
      const newStarts = reread.entries.filter((entry) =>
        entry.type === "turn_start"
      );
      assert.equal(
        newStarts.length,
        Math.max(originalStarts.length, 1),
        `${dir}: a legacy stream gains one turn_start`,
      );
    }
  },
});

Deno.test({
  name: "legacy fixtures show the request's first line as turn 0's fallback",
  ignore,
  fn() {
    for (const dir of fixtureConversations()) {
      const stream = ConversationStream.parse(
        Deno.readFileSync(join(dir, "events.json")),
      );
      const firstRequest = stream.entries.find((entry) =>
        entry.type === "chat_request"
      )!;
      const line = (firstRequest.data().content as string).split("\n").find((
        part,
      ) => part.trim() !== "")!;
      const expected = line.replace(/\s+/g, " ").trim();
      const fallback = stream.turns()[0]!.fallbackSummary()!;
      if (Array.from(expected).length <= 72) {
        assert.equal(fallback, expected, dir);
      } else {assert.equal(
          fallback,
          Array.from(expected).slice(0, 71).join("").trimEnd() + "…",
          dir,
        );}
    }
  },
});
