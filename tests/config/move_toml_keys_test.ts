import assert from "node:assert/strict";
import { removeTomlKeys } from "../../src/config/move_toml_keys.ts";

Deno.test("removeTomlKeys() moves a table and its sub-tables with their comments, keeping the rest and its blank lines", () => {
  const text =
    '# top\n[conversation.turn_summary]\n# inside\n[conversation.turn_summary.generate]\nauto = false\n[conversation.turn_summary.generate.model]\nid = "ollama/x"\n\n[style]\n# kept\ncolor = true\n';
  const result = removeTomlKeys(text, ["conversation.turn_summary"])!;
  assert.equal(result.text, "\n[style]\n# kept\ncolor = true\n");
  // The comment right above the table and the one inside go with it.
  assert.equal(
    result.moved,
    '# top\n[conversation.turn_summary]\n# inside\n[conversation.turn_summary.generate]\nauto = false\n[conversation.turn_summary.generate.model]\nid = "ollama/x"\n',
  );
  assert.deepEqual(result.removed, {
    conversation: {
      turn_summary: { generate: { auto: false, model: { id: "ollama/x" } } },
    },
  });
});

Deno.test("removeTomlKeys() drops dotted keys and multi-line values", () => {
  const text =
    '[conversation]\nstart_local = true\nturn_summary.generate.batch_size = 2\nturn_summary.generate.model.parameters.stop_words = [\n  "a",\n  "]",\n]\n\n[assistant]\nname = "x"\n';
  const result = removeTomlKeys(text, ["conversation.turn_summary"])!;
  assert.equal(
    result.text,
    '[conversation]\nstart_local = true\n\n[assistant]\nname = "x"\n',
  );
  assert.equal(result.removedLines.length, 5);
  // Key lines of a table that stays go under its header.
  assert.equal(
    result.moved,
    '[conversation]\nturn_summary.generate.batch_size = 2\nturn_summary.generate.model.parameters.stop_words = [\n  "a",\n  "]",\n]\n',
  );
});

Deno.test("removeTomlKeys() refuses what lines alone cannot remove (an inline table)", () => {
  const text =
    "conversation = { start_local = true, turn_summary = { generate = { auto = false } } }\n";
  assert.equal(removeTomlKeys(text, ["conversation.turn_summary"]), undefined);
});
