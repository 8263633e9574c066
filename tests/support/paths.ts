/**
 * Paths the tests use, resolved from this file (never from the working
 * directory), and the shared real-jp fixtures when they are present.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The repository root. */
export const REPO_ROOT: string = fileURLToPath(
  new URL("../../", import.meta.url),
);

/** The sources' entry point (`main.ts`). */
export const MAIN_TS: string = join(REPO_ROOT, "main.ts");

/**
 * The entry point the CLI tests run: `$JPT_ENTRY` when set (CI sets it to
 * the bundled single file, the stand-in for a release binary), else
 * `main.ts` (what `deno task install` and JSR run).
 */
export const JPT_ENTRY: string = Deno.env.get("JPT_ENTRY") ?? MAIN_TS;

/** `$EDITOR` for tests: the scripted editor (`scripted_editor.ts`), run by Deno. */
export const SCRIPTED_EDITOR: string = `${Deno.execPath()} run -A ${
  join(REPO_ROOT, "tests", "support", "scripted_editor.ts")
}`;

/**
 * A path inside `testdata/`.
 *
 * @param parts Path segments below `testdata/`.
 * @returns The absolute path.
 */
export function testdata(...parts: string[]): string {
  return join(REPO_ROOT, "testdata", ...parts);
}

/** The real jp conversations in `../shared/fixtures`, or `undefined` when absent. */
export const FIXTURES_DIR: string | undefined = (() => {
  const dir = join(REPO_ROOT, "..", "shared", "fixtures", "jp-conversations");
  try {
    return Deno.statSync(dir).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
})();

// Said once per test run: every test module loads this file, but they all run
// in one process, whose environment remembers that the line was printed.
if (FIXTURES_DIR === undefined && Deno.env.get("JPT_TEST_SKIP_SAID") !== "1") {
  Deno.env.set("JPT_TEST_SKIP_SAID", "1");
  console.log(
    "SKIP: ../shared/fixtures/jp-conversations not found; tests on real jp conversations are skipped",
  );
}

/**
 * The real fixture conversation directories (empty when the fixtures are absent).
 *
 * @returns Absolute directory paths, sorted.
 */
export function fixtureConversations(): string[] {
  if (FIXTURES_DIR === undefined) return [];
  return [...Deno.readDirSync(FIXTURES_DIR)]
    .filter((item) => item.isDirectory)
    .map((item) => join(FIXTURES_DIR!, item.name))
    .sort();
}
