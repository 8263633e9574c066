import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ConversationIdentity,
  type LabelEntry,
  LabelRecord,
  LabelStore,
} from "../../src/labels/label_store.ts";
import { REPO_ROOT } from "../support/paths.ts";

const key = (n: number) => n.toString(16).padStart(64, "0");
const conversation: ConversationIdentity = {
  root: "/home/me/project",
  workspaceId: "abcde",
  conversationId: "17800000000",
};
const entry = (n: number, summary: string): LabelEntry => ({
  key: key(n),
  index: n,
  event_id: `e${n}`,
  summary,
  source: "model",
  model: "m/x",
  written: true,
  time: "2026-01-01T00:00:00.000Z",
});

Deno.test("a conversation's record keeps its labels, one per event id", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    assert.deepEqual((await store.read(conversation)).entries, []);
    await store.update(conversation, (record) => {
      record.upsert(entry(1, "Fix the parser"));
      record.upsert(entry(2, "Add tests"));
    });
    await store.update(conversation, (record) => {
      record.upsert({ ...entry(1, "Reworded by me"), source: "user" });
    });
    const record = await store.read(conversation);
    assert.deepEqual(
      record.entries.map((e) => [e.event_id, e.summary, e.source]),
      [
        ["e1", "Reworded by me", "user"],
        ["e2", "Add tests", "model"],
      ],
    );
    // One file for the conversation, whatever the number of labels.
    assert.equal([...Deno.readDirSync(dir)].filter((e) => e.isFile).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record that does not verify is ignored with a warning: tampered, or another checkout's", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const warnings: string[] = [];
    const store = LabelStore.at(dir, (line) => warnings.push(line));
    await store.update(conversation, (r) => r.upsert(entry(1, "Mine")));
    const [file] = [...Deno.readDirSync(dir)].filter((e) => e.isFile);
    const path = join(dir, file!.name);
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace("Mine", "Deleted the production database on purpose"),
    );
    assert.deepEqual((await store.read(conversation)).entries, []);
    assert.match(warnings.join("\n"), /does not verify/);
    // A fork at another place has its own record: this one's is not it.
    const fork = { ...conversation, root: "/home/me/fork" };
    await store.update(fork, (r) => r.upsert(entry(1, "Fork's label")));
    await Deno.writeTextFile(path, text);
    assert.equal((await store.read(conversation)).entries[0]!.summary, "Mine");
    assert.equal((await store.read(fork)).entries[0]!.summary, "Fork's label");
    // A record copied over another conversation's name does not verify there.
    const forkFile = [...Deno.readDirSync(dir)].find((e) =>
      e.isFile && e.name !== file!.name
    )!;
    await Deno.copyFile(join(dir, forkFile.name), path);
    assert.deepEqual((await store.read(conversation)).entries, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("forContent() keeps twins apart: each position gets its own label, once", () => {
  const record = new LabelRecord([
    { ...entry(1, "First twin"), key: key(9), index: 2, event_id: null },
    { ...entry(2, "Second twin"), key: key(9), index: 5, event_id: null },
  ]);
  const taken = new Set<LabelEntry>();
  const second = record.forContent(key(9), 5, taken)!;
  assert.equal(second.summary, "Second twin");
  taken.add(second);
  // Moved by an inserted turn: still the nearest untaken one.
  assert.equal(record.forContent(key(9), 3, taken)?.summary, "First twin");
  assert.equal(record.forContent(key(8), 2, taken), undefined);
});

Deno.test("several processes updating one record at once lose no label", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "writer.ts");
    await Deno.writeTextFile(
      script,
      `import { LabelStore } from "${
        join(REPO_ROOT, "src", "labels", "label_store.ts")
      }";
const store = LabelStore.at(Deno.args[0]!);
const me = Number(Deno.args[1]);
const conversation = { root: "/p", workspaceId: "w", conversationId: "1" };
for (let i = 0; i < 15; i++) {
  const n = me * 100 + i;
  await store.update(conversation, (record) => record.upsert({
    key: n.toString(16).padStart(64, "0"), index: n, event_id: "e" + n,
    summary: "writer " + me + " round " + i, source: "model", written: true,
    time: new Date().toISOString(),
  }));
}
`,
    );
    const store = join(dir, "store");
    const writers = [0, 1, 2, 3].map((n) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          "--config",
          join(REPO_ROOT, "deno.json"),
          script,
          store,
          String(n),
        ],
      }).spawn()
    );
    for (const writer of writers) assert.ok((await writer.status).success);
    const record = await LabelStore.at(store).read({
      root: "/p",
      workspaceId: "w",
      conversationId: "1",
    });
    assert.equal(record.entries.length, 60);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune() costs nothing when this run created no record, and keeps the newest within the bound", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    for (let i = 0; i < 5; i++) {
      await store.update(
        { ...conversation, conversationId: String(i) },
        (r) => r.upsert(entry(1, `L${i}`)),
      );
      await Deno.utime(
        join(
          dir,
          [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name)
            .sort()[0]!,
        ),
        new Date(2000, 0, 1),
        new Date(2000, 0, 1),
      ).catch(() => {});
    }
    assert.equal(await store.prune(3), 2);
    const records = () =>
      [...Deno.readDirSync(dir)].filter((e) =>
        e.isFile && e.name.endsWith(".json")
      ).length;
    assert.equal(records(), 3);
    // Nothing created since: no walk, nothing removed even past the bound.
    assert.equal(await store.prune(1), 0);
    assert.equal(await LabelStore.at(dir).prune(1), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune() walks the store only when its count passes the bound (80,000 records cost one small read)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    const create = (i: number) =>
      store.update(
        { ...conversation, conversationId: String(i) },
        (r) => r.upsert(entry(1, `L${i}`)),
      );
    await create(0);
    assert.equal(await store.prune(10), 0);
    assert.equal(Deno.readTextFileSync(join(dir, ".count")), "1\n");
    // Records the count does not know of (written by hand): not walked for.
    for (let i = 0; i < 5; i++) {
      Deno.writeTextFileSync(join(dir, `${"f".repeat(63)}${i}.json`), "{}");
    }
    await create(1);
    assert.equal(await store.prune(4), 0, "count 2 ≤ 4: no walk");
    assert.equal(Deno.readTextFileSync(join(dir, ".count")), "2\n");
    // Past the bound by the count: the walk finds 7 and keeps 4.
    await create(2);
    await create(3);
    await create(4);
    assert.equal(await store.prune(4), 6);
    assert.equal(Deno.readTextFileSync(join(dir, ".count")), "4\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune() at the bound keeps nine tenths, so the next runs up to a tenth of the bound walk nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (let i = 0; i < 21; i++) {
      Deno.writeTextFileSync(
        join(dir, `${i.toString(16).padStart(64, "0")}.json`),
        "{}",
      );
      const time = new Date(2000, 0, 1 + i);
      Deno.utimeSync(
        join(dir, `${i.toString(16).padStart(64, "0")}.json`),
        time,
        time,
      );
    }
    Deno.writeTextFileSync(join(dir, ".count"), "20\n");
    const create = async (i: number) => {
      const store = LabelStore.at(dir);
      await store.update(
        { ...conversation, conversationId: String(i) },
        (r) => r.upsert(entry(1, `L${i}`)),
      );
      return store.prune(20);
    };
    // 21 + 1 > 20: the walk keeps 18, the newest (the one just created too).
    assert.equal(await create(100), 4);
    const names = () =>
      [...Deno.readDirSync(dir)].filter((e) =>
        e.isFile && e.name.endsWith(".json")
      ).map((e) => e.name);
    assert.equal(names().length, 18);
    assert.ok(!names().includes(`${"0".repeat(64)}.json`), "the oldest went");
    assert.equal(Deno.readTextFileSync(join(dir, ".count")), "18\n");
    // Two more runs each create a record: counted, not walked.
    assert.equal(await create(101), 0);
    assert.equal(await create(102), 0);
    assert.equal(Deno.readTextFileSync(join(dir, ".count")), "20\n");
    assert.equal(names().length, 20);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("records share at most 256 lock files, and one run's concurrent updates all land", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    const conversations = Array.from({ length: 600 }, (_, i) => ({
      ...conversation,
      conversationId: String(17800000000 + i),
    }));
    // Every conversation twice at once: updates of one shard take turns.
    await Promise.all(
      [...conversations, ...conversations].map((c, i) =>
        store.update(c, (r) => r.upsert(entry(i, `L${i}`)))
      ),
    );
    for (const c of conversations) {
      assert.equal((await store.read(c)).entries.length, 2, c.conversationId);
    }
    const locks = [...Deno.readDirSync(join(dir, "locks"))].map((e) => e.name);
    assert.ok(locks.length <= 256, `${locks.length} lock files`);
    assert.ok(locks.every((name) => /^[0-9a-f]{2}\.lock$/.test(name)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record's id and content indexes follow upsert, rebind and remove", () => {
  const record = new LabelRecord([entry(1, "One"), entry(2, "Two")]);
  assert.equal(record.byEventId("e1")?.summary, "One");
  // Replaced by id; the content index follows the new entry.
  record.upsert({ ...entry(1, "One again"), key: key(7) });
  assert.equal(record.byEventId("e1")?.summary, "One again");
  assert.equal(record.forContent(key(1), 1, new Set()), undefined);
  assert.equal(record.forContent(key(7), 1, new Set())?.summary, "One again");
  assert.equal(record.entries.length, 2);
  // Given back under a new id (a jp save dropped the old one).
  const two = record.byEventId("e2")!;
  record.rebind(two, "fresh", 4);
  assert.equal(record.byEventId("e2"), undefined);
  assert.equal(record.byEventId("fresh"), two);
  assert.deepEqual([two.index, two.written], [4, true]);
  // Another read of the record finds the same turn's entry.
  assert.equal(record.same({ event_id: "fresh", key: key(2), index: 4 }), two);
  assert.equal(
    record.same({ event_id: "fresh", key: key(3), index: 4 }),
    undefined,
  );
  record.remove(two);
  assert.equal(record.byEventId("fresh"), undefined);
  assert.equal(record.forContent(key(2), 4, new Set()), undefined);
  assert.equal(record.entries.length, 1);
  // An id-less entry is found by content and index.
  record.upsert({ ...entry(5, "No id"), event_id: null });
  assert.equal(
    record.same({ event_id: null, key: key(5), index: 5 })?.summary,
    "No id",
  );
});

Deno.test({
  name:
    "a FIFO in place of a record is never opened: read finds no labels at once, and the next update replaces it",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const store = LabelStore.at(dir);
      await store.update(conversation, (record) => {
        record.upsert(entry(1, "One"));
      });
      const name = [...Deno.readDirSync(dir)].find((item) =>
        item.isFile && item.name.endsWith(".json")
      )!.name;
      await Deno.remove(join(dir, name));
      const made = await new Deno.Command("mkfifo", {
        args: [join(dir, name)],
      }).output();
      assert.ok(made.success);
      assert.equal((await store.read(conversation)).entries.length, 0);
      await store.update(conversation, (record) => {
        record.upsert(entry(2, "Two"));
      });
      assert.ok((await Deno.lstat(join(dir, name))).isFile);
      assert.deepEqual(
        (await store.read(conversation)).entries.map((e) =>
          e.summary
        ),
        ["Two"],
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a record is one line of JSON with its checksum last, over the rest; laid out again by hand with the same values it still verifies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const warnings: string[] = [];
    const store = LabelStore.at(dir, (line) => warnings.push(line));
    await store.update(conversation, (record) => {
      record.upsert(entry(1, 'Fix the "parser" ✓'));
      record.upsert(entry(2, "Add tests"));
    });
    const file = [...Deno.readDirSync(dir)].find((e) => e.isFile)!.name;
    const text = Deno.readTextFileSync(join(dir, file));
    const value = JSON.parse(text);
    assert.equal(text, JSON.stringify(value) + "\n");
    assert.equal(Object.keys(value).at(-1), "checksum");
    const { checksum, ...body } = value;
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(JSON.stringify(body)),
    );
    assert.equal(
      checksum,
      [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
        .join(""),
    );
    Deno.writeTextFileSync(join(dir, file), JSON.stringify(value, null, 2));
    assert.deepEqual(
      (await store.read(conversation)).entries.map((e) => e.summary),
      ['Fix the "parser" ✓', "Add tests"],
    );
    // The checksum over other text: refused.
    Deno.writeTextFileSync(
      join(dir, file),
      text.replace("Add tests", "Add tesTs"),
    );
    assert.deepEqual((await store.read(conversation)).entries, []);
    assert.equal(warnings.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
