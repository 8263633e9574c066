import assert from "node:assert/strict";
import { join } from "node:path";
import type { ConversationOutline } from "../../src/app/read/conversation_outline.ts";
import { ViewCache } from "../../src/web/view_cache.ts";

Deno.test("ViewCache keeps a view while its files are unchanged, reads again after a write, and keeps two", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const refs = ["1", "2", "3"].map((id) => {
      const copy = join(dir, id);
      Deno.mkdirSync(copy);
      Deno.writeTextFileSync(join(copy, "events.json"), "[]\n");
      return { id, copies: [{ root: undefined, dir: copy }] };
    });
    const cache = new ViewCache();
    let reads = 0;
    const read = (id: string) => () => {
      reads++;
      return Promise.resolve({ ref: { id } } as unknown as ConversationOutline);
    };
    const first = await cache.get(refs[0]!, read("1"));
    assert.equal(await cache.get(refs[0]!, read("1")), first);
    assert.equal(reads, 1);
    // An atomic rewrite (a new file) is a change.
    Deno.writeTextFileSync(join(dir, "1", "events.json.tmp"), "[ ]\n");
    Deno.renameSync(
      join(dir, "1", "events.json.tmp"),
      join(dir, "1", "events.json"),
    );
    assert.notEqual(await cache.get(refs[0]!, read("1")), first);
    assert.equal(reads, 2);
    // Two kept: reading 2 and 3 drops 1, the least recently used.
    await cache.get(refs[1]!, read("2"));
    await cache.get(refs[2]!, read("3"));
    await cache.get(refs[0]!, read("1"));
    assert.equal(reads, 5);
    await cache.get(refs[2]!, read("3"));
    assert.equal(reads, 5, "3 is still kept");
    cache.forget(refs[2]!);
    await cache.get(refs[2]!, read("3"));
    assert.equal(reads, 6, "3 was forgotten");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
