import assert from "node:assert/strict";
import {
  MAX_APP_IMPORTS,
  MAX_CLI_IMPORTS,
  violations,
} from "../../scripts/check_imports.ts";

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
  assert.deepEqual(problems.filter((p) => p.includes("cycle")), [
    "folder cycle: src/a -> src/b -> src/a",
  ]);
  // Folders the layers do not draw are named too.
  assert.ok(problems.includes(
    "src/a is on no floor of LAYERS (add it, and to ARCHITECTURE.md)",
  ));
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

Deno.test("violations() refuses an import up or across the documented layers, without any cycle", () => {
  const problems = violations(graph({
    "src/workspace/x.ts": ["src/labels/store.ts"],
    "src/labels/store.ts": [],
    "src/summary/a.ts": ["src/edit/b.ts"],
    "src/edit/b.ts": [],
  }));
  assert.deepEqual(problems, [
    "layer: src/summary imports src/edit, which is not below it",
    "layer: src/workspace imports src/labels, which is not below it",
  ]);
});

Deno.test("violations() limits what one flow in src/app imports", () => {
  const many = Array.from(
    { length: MAX_APP_IMPORTS + 1 },
    (_, i) => `src/task/t_${i}.ts`,
  );
  const problems = violations(graph({ "src/app/big_flow.ts": many }));
  assert.deepEqual(problems, [
    `src/app/big_flow.ts imports ${
      MAX_APP_IMPORTS + 1
    } modules (at most ${MAX_APP_IMPORTS})`,
  ]);
});

Deno.test("violations() refuses a literal dynamic import of a file of src/, and the import limits leave src/platform/lazy_import.ts out", () => {
  const dynamic = new Map([
    ["src/cli/turns.ts", new Set(["src/app/list_turns.ts"])],
  ]);
  const outside = Array.from(
    { length: MAX_CLI_IMPORTS },
    (_, i) => `src/app/flow_${i}.ts`,
  );
  const problems = violations(
    graph({
      "src/cli/turns.ts": [...outside, "src/platform/lazy_import.ts"],
      "src/platform/lazy_import.ts": [],
    }),
    dynamic,
  );
  assert.deepEqual(problems, [
    "src/cli/turns.ts imports src/app/list_turns.ts by a literal dynamic import: use importLazily (src/platform/lazy_import.ts)",
  ]);
});
