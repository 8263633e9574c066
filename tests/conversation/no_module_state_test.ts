/**
 * The codec (`src/conversation/`) is pure: no module of it holds state
 * that outlives a call. Checked on the source text: no top-level `let` or
 * `var`, no module-level collection that is not typed read-only, no static
 * class field that is not `readonly`. (A global or sticky RegExp's
 * `lastIndex` is set before each use, inside one synchronous call.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/paths.ts";

const MUTABLE: { rule: string; pattern: RegExp }[] = [
  { rule: "top-level let or var", pattern: /^(export )?(let|var) /m },
  {
    rule: "a module-level collection not typed read-only",
    pattern:
      /^(export )?const \w+(: (?!Readonly|readonly)[^=]+)? = (new (Map|Set|WeakMap|WeakSet|Array)\b|\[\s*\]|\{\s*\})/m,
  },
  {
    rule: "a static field that is not readonly",
    pattern: /^\s+static (?!readonly\b)(?!async\b)#?\w+\s*[=:;]/m,
  },
];

Deno.test("src/conversation/ holds no module-level mutable state", async () => {
  const dir = join(REPO_ROOT, "src", "conversation");
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(join(dir, entry.name));
    for (const { rule, pattern } of MUTABLE) {
      const match = pattern.exec(text);
      if (match) found.push(`${entry.name}: ${rule}: ${match[0].trim()}`);
    }
  }
  assert.deepEqual(found, []);
});

Deno.test("the module-state check finds each kind of state it names", () => {
  const samples = [
    "let cache = 1;",
    "const seen = new Map<string, string>();",
    "export const list = [];",
    "class A {\n  static count = 0;\n}",
  ];
  for (const sample of samples) {
    assert.ok(
      MUTABLE.some(({ pattern }) => pattern.test(sample)),
      sample,
    );
  }
  assert.ok(
    !MUTABLE.some(({ pattern }) =>
      pattern.test('export const TYPES: ReadonlySet<string> = new Set(["a"]);')
    ),
  );
});
