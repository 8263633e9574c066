import assert from "node:assert/strict";
import { CfgSyntaxError, parseCfgArg } from "../../src/config/cfg_arg.ts";
import { ConfigValueError } from "../../src/config/schema.ts";

Deno.test("parseCfgArg() understands every --cfg form", () => {
  assert.deepEqual(parseCfgArg("@conf/x.toml"), {
    kind: "file",
    path: "conf/x.toml",
    named: false,
  });
  assert.deepEqual(parseCfgArg("dev"), {
    kind: "file",
    path: "dev",
    named: true,
  });
  assert.deepEqual(parseCfgArg("./x.toml"), {
    kind: "file",
    path: "./x.toml",
    named: false,
  });
  assert.deepEqual(parseCfgArg('{"a": {"b": 1}}'), {
    kind: "merge",
    value: { a: { b: 1 } },
  });
  assert.deepEqual(parseCfgArg("assistant.model.id=ollama/llama3.2:3b"), {
    kind: "set",
    path: ["assistant", "model", "id"],
    value: "ollama/llama3.2:3b",
  });
  assert.deepEqual(
    parseCfgArg('assistant.model.parameters:={"temperature": 0.5}'),
    {
      kind: "set",
      path: ["assistant", "model", "parameters"],
      value: { temperature: 0.5 },
    },
  );
  assert.deepEqual(parseCfgArg("assistant.model.parameters.stop_words+=END"), {
    kind: "append",
    path: ["assistant", "model", "parameters", "stop_words"],
    value: ["END"],
  });
  assert.deepEqual(parseCfgArg('style:+={"a": 1}'), {
    kind: "append",
    path: ["style"],
    value: { a: 1 },
  });
  assert.deepEqual(parseCfgArg("x.y=a=b"), {
    kind: "set",
    path: ["x", "y"],
    value: "a=b",
  }, "only the first = splits");
});

Deno.test("parseCfgArg() converts key=value to the field's type", () => {
  const value = (arg: string) => (parseCfgArg(arg) as { value: unknown }).value;
  assert.equal(value("conversation.turn_summary.generate.auto=false"), false);
  assert.equal(value("conversation.turn_summary.generate.batch_size=3"), 3);
  assert.equal(value("assistant.model.parameters.temperature=0.7"), 0.7);
  assert.equal(value("assistant.model.parameters.reasoning=1024"), 1024);
  assert.equal(value("assistant.model.parameters.reasoning=low"), "low");
  assert.deepEqual(value("assistant.model.parameters.stop_words=a, b"), [
    "a",
    "b",
  ]);
  assert.equal(value("unknown.key=5"), "5", "unknown keys stay strings");
});

Deno.test("parseCfgArg() names the key and the expected type on a bad value", () => {
  assert.throws(
    () => parseCfgArg("conversation.turn_summary.generate.batch_size=five"),
    (error) =>
      error instanceof ConfigValueError &&
      error.message ===
        'Invalid value for "conversation.turn_summary.generate.batch_size": expected an integer, got "five"',
  );
  assert.throws(
    () => parseCfgArg("conversation.title.generate.auto=yes"),
    /expected a boolean \(true or false\), got "yes"/,
  );
  assert.throws(
    () => parseCfgArg("assistant.model.parameters.top_p=high"),
    /expected a number/,
  );
  assert.throws(() => parseCfgArg("a:={broken"), CfgSyntaxError);
  assert.throws(() => parseCfgArg("{1}"), CfgSyntaxError);
  assert.throws(() => parseCfgArg("bad key=1"), /is not a dotted key/);
});
