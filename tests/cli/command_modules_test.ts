import assert from "node:assert/strict";
import {
  COMMANDS,
  registerCommandModules,
} from "../../src/cli/command_table.ts";
import { COMMAND_MODULES } from "../../src/cli/command_modules.ts";

Deno.test("a single-file build registers every command module, and each loads the same command as by its path", async () => {
  const byPath = await Promise.all(COMMANDS.map((entry) => entry.load()));
  const asked: string[] = [];
  registerCommandModules(
    Object.fromEntries(
      Object.entries(COMMAND_MODULES).map(([file, load]) => [file, () => {
        asked.push(file);
        return load();
      }]),
    ),
  );
  try {
    const registered = await Promise.all(
      COMMANDS.map((entry) => entry.load()),
    );
    // Every entry went through the registry (none fell back to its path)…
    assert.equal(asked.length, COMMANDS.length);
    // …every registered module is one a command names…
    assert.deepEqual(new Set(asked), new Set(Object.keys(COMMAND_MODULES)));
    // …and each gives the very function its path gives.
    for (const [index, add] of registered.entries()) {
      assert.equal(typeof add, "function", COMMANDS[index]!.names[0]);
      assert.equal(add, byPath[index], COMMANDS[index]!.names[0]);
    }
  } finally {
    registerCommandModules(undefined);
  }
});
