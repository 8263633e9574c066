import assert from "node:assert/strict";
import { readAllText } from "../../src/cli/output.ts";

/** A reader handing out the given pieces, one per read. */
function pieces(...parts: Uint8Array[]) {
  let next = 0;
  return {
    read(into: Uint8Array): Promise<number | null> {
      const part = parts[next++];
      if (part === undefined) return Promise.resolve(null);
      into.set(part);
      return Promise.resolve(part.length);
    },
  };
}

Deno.test("readAllText() joins every read and decodes UTF-8 split across reads, as Response.text() does", async () => {
  const bytes = new TextEncoder().encode("\uFEFFgrüße 👋\nline two");
  const cases = [
    [bytes],
    [bytes.subarray(0, 6), bytes.subarray(6, 9), bytes.subarray(9)],
    [...bytes].map((byte) => Uint8Array.of(byte)),
    [Uint8Array.of(0x61, 0xff, 0x62)],
    [],
  ];
  for (const parts of cases) {
    const expected = await new Response(
      new Blob(parts.map((part) => part.slice())),
    ).text();
    assert.equal(await readAllText(pieces(...parts)), expected);
  }
  assert.equal(await readAllText(pieces(bytes)), "grüße 👋\nline two");
  assert.equal(
    await readAllText(pieces(Uint8Array.of(0x61, 0xff, 0x62))),
    "a\uFFFDb",
  );
});
