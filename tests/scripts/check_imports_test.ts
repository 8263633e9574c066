import assert from "node:assert/strict";
import { MAX_CLI_IMPORTS, violations } from "../../scripts/check_imports.ts";

const graph = (edges: Record<string, string[]>) =>
  new Map(Object.entries(edges).map(([file, to]) => [file, new Set(to)]));

Deno.test("violations() accepts a one-way graph", () => {
  assert.deepEqual(
    violations(graph({
      "src/cli/turns.ts": ["src/app/list_turns.ts", "src/cli/output.ts"],
      "src/app/list_turns.ts": ["src/conversation/turn.ts"],
      "src/conversation/turn.ts": [],
    })),
    [],
  );
});

Deno.test("violations() names a file cycle and the folder cycle it makes", () => {
  const problems = violations(graph({
    "src/config/model_id.ts": ["src/llm/providers.ts"],
    "src/llm/providers.ts": ["src/config/model_id.ts"],
  }));
  assert.ok(
    problems.includes(
      "file cycle: src/config/model_id.ts -> src/llm/providers.ts -> src/config/model_id.ts",
    ),
    problems.join("\n"),
  );
  assert.ok(
    problems.includes("folder cycle: src/config -> src/llm -> src/config"),
    problems.join("\n"),
  );
});

Deno.test("violations() finds a folder cycle made by different files", () => {
  const problems = violations(graph({
    "src/a/x.ts": ["src/b/y.ts"],
    "src/b/z.ts": ["src/a/w.ts"],
    "src/b/y.ts": [],
    "src/a/w.ts": [],
  }));
  assert.deepEqual(problems, ["folder cycle: src/a -> src/b -> src/a"]);
});

Deno.test("violations() limits what a CLI file imports from outside src/cli", () => {
  const outside = Array.from(
    { length: MAX_CLI_IMPORTS + 1 },
    (_, i) => `src/app/flow_${i}.ts`,
  );
  const problems = violations(graph({
    "src/cli/big.ts": [...outside, "src/cli/output.ts"],
    "src/cli/small.ts": outside.slice(0, MAX_CLI_IMPORTS),
  }));
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /^src\/cli\/big\.ts imports 6 modules outside/);
});
