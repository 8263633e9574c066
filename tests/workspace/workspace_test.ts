import assert from "node:assert/strict";
import { join } from "node:path";
import {
  userDataDir,
  Workspace,
  WorkspaceNotFoundError,
} from "../../src/workspace/workspace.ts";
import {
  loadConversation,
  saveConversation,
} from "../../src/workspace/conversation_io.ts";
import { resolveConversation } from "../../src/workspace/conversation_ref.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";
import { testdata } from "../support/paths.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("Workspace.find() walks up to the directory holding .jp", async () => {
  await using ws = await tempWorkspace();
  const deep = join(ws.root, "a", "b");
  await Deno.mkdir(deep, { recursive: true });
  const found = await Workspace.find(deep, env({}));
  assert.equal(found.root, ws.root);
  assert.equal(found.id, "abcde");
  await assert.rejects(
    Workspace.find(join(ws.userData), env({})),
    WorkspaceNotFoundError,
  );
});

Deno.test("userDataDir() honours JP_USER_DATA_DIR, then an absolute XDG_DATA_HOME", () => {
  assert.equal(
    userDataDir(env({ JP_USER_DATA_DIR: "/x/jp", XDG_DATA_HOME: "/y" })),
    "/x/jp",
  );
  assert.equal(userDataDir(env({ XDG_DATA_HOME: "/y" })), "/y/jp");
  if (Deno.build.os === "linux") {
    assert.equal(
      userDataDir(env({ XDG_DATA_HOME: "relative", HOME: "/home/u" })),
      "/home/u/.local/share/jp",
    );
  }
});

Deno.test("Workspace lists conversations of both roots and reads the newer copy", async () => {
  await using ws = await tempWorkspace("otvo8");
  const silo = join(ws.userData, "workspace", "renamed-project-otvo8");
  await Deno.mkdir(join(silo, "conversations"), { recursive: true });
  const g3 = await Deno.readFile(testdata("streams", "g3.json"));
  const g4 = await Deno.readFile(testdata("streams", "g4.json"));
  const inWorkspace = await writeConversation(
    ws.conversations,
    "17758406187-title",
    g3,
  );
  const inUser = await writeConversation(
    join(silo, "conversations"),
    "17758406187-title",
    g4,
  );
  await writeConversation(ws.conversations, "17758406188", g3);
  await Deno.mkdir(join(ws.conversations, ".archive", "17758406189"), {
    recursive: true,
  });
  await Deno.mkdir(join(ws.conversations, "not-an-id"));
  await Deno.writeTextFile(
    join(ws.conversations, "17758406190"),
    "a file, not a directory",
  );

  const workspace = await Workspace.open(
    ws.root,
    env({ JP_USER_DATA_DIR: ws.userData }),
  );
  assert.equal(workspace.userDir, silo);
  const dirs = await workspace.conversationDirs();
  assert.deepEqual([...dirs.keys()].sort(), ["17758406187", "17758406188"]);
  assert.deepEqual(dirs.get("17758406187")!.map((copy) => copy.root.kind), [
    "user",
    "workspace",
  ]);

  const ref = await resolveConversation(workspace, "jp-c17758406187");
  const old = new Date("2020-01-01T00:00:00Z");
  await Deno.utime(join(inUser, "events.json"), old, old);
  assert.equal(
    (await loadConversation(ref)).source.dir,
    inWorkspace,
    "the newer events.json wins",
  );
  await Deno.utime(join(inWorkspace, "events.json"), old, old);
  assert.equal(
    (await loadConversation(ref)).source.dir,
    inUser,
    "a tie goes to user-local",
  );

  const loaded = await loadConversation(ref);
  loaded.stream.setTurnSummary("p8q2r4b", "Fix the warning");
  const written = await saveConversation(loaded);
  assert.deepEqual(
    written.sort(),
    [join(inUser, "events.json"), join(inWorkspace, "events.json")].sort(),
  );
  const again = await Deno.readFile(join(inWorkspace, "events.json"));
  assert.deepEqual(
    again,
    await Deno.readFile(join(inUser, "events.json")),
    "every copy gets the same bytes",
  );
  assert.deepEqual(
    await saveConversation(await loadConversation(ref)),
    [],
    "nothing changed, nothing written",
  );

  assert.equal(
    await workspace.lockPath("17758406187"),
    join(silo, "locks", "jp-c17758406187.lock"),
  );
});

Deno.test("resolveConversation() takes a conversation directory by path, outside any workspace", async () => {
  await using ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.userData,
    "17758406187",
    await Deno.readFile(testdata("streams", "g3.json")),
  );
  const ref = await resolveConversation(undefined, dir);
  assert.deepEqual(ref, {
    id: "17758406187",
    copies: [{ root: undefined, dir }],
  });
  await assert.rejects(
    resolveConversation(undefined, join(ws.userData, "missing")),
    /No conversation/,
  );
});
