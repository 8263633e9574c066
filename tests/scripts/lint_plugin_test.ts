import assert from "node:assert/strict";
import plugin, { MAX_FUNCTION_LINES } from "../../scripts/lint_plugin.ts";

function functionOf(lines: number): string {
  const body = Array.from(
    { length: lines - 2 },
    (_, i) => `  const v${i} = ${i};`,
  );
  return `export function big() {\n${body.join("\n")}\n}\n`;
}

Deno.test("jpt/max-function-lines reports a long function in src/app and src/cli only", () => {
  const long = functionOf(MAX_FUNCTION_LINES + 1);
  const reported = Deno.lint.runPlugin(plugin, "/repo/src/app/flow.ts", long);
  assert.equal(reported.length, 1);
  assert.match(reported[0]!.message, /function of 101 lines \(at most 100\)/);
  assert.equal(
    Deno.lint.runPlugin(plugin, "/repo/src/cli/cmd.ts", long).length,
    1,
  );
  assert.equal(
    Deno.lint.runPlugin(plugin, "/repo/src/summary/packing.ts", long).length,
    0,
  );
  assert.equal(
    Deno.lint.runPlugin(
      plugin,
      "/repo/src/app/flow.ts",
      functionOf(MAX_FUNCTION_LINES),
    ).length,
    0,
  );
});
