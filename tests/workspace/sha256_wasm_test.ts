import assert from "node:assert/strict";
import { currentGeneratedModule } from "../../scripts/sha256_wasm.ts";

Deno.test("sha256_wasm.ts is what deno task wasm assembles from sha256.wat", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../src/workspace/sha256_wasm.ts", import.meta.url),
  );
  assert.equal(
    committed,
    await currentGeneratedModule(),
    "sha256.wat changed: run `deno task wasm`",
  );
});
