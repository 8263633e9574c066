/**
 * Files that are not regular files, or too large, are refused at once with
 * a clear error instead of hanging or filling memory; a symbolic link to
 * `events.json` is written through.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { canRun } from "../support/can_run.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { testdata } from "../support/paths.ts";
import { copyConversation, tempWorkspace } from "../support/workspace.ts";

const HAS_MKFIFO = Deno.build.os !== "windows" &&
  canRun("mkfifo", ["--version"]);

async function workspaceWithConversation() {
  const ws = await tempWorkspace();
  const [source] = [
    ...Deno.readDirSync(testdata("workspace", ".jp", "conversations")),
  ];
  const dir = await copyConversation(
    testdata("workspace", ".jp", "conversations", source!.name),
    ws.conversations,
  );
  return { ws, dir };
}

Deno.test({
  name:
    "a FIFO or a device in place of a conversation file is an error, not a hang",
  ignore: !HAS_MKFIFO,
  async fn() {
    const id = "jp-c17800000000";
    const readers: Record<string, string[][]> = {
      "events.json": [["turns", id], ["conversation", "ls"]],
      "metadata.json": [["turns", id], ["conversation", "ls"]],
      "base_config.json": [["config", "show", "--id", id]],
    };
    for (const [file, commands] of Object.entries(readers)) {
      for (const kind of ["fifo", "device"]) {
        const { ws, dir } = await workspaceWithConversation();
        await using _ = ws;
        const path = join(dir, file);
        await Deno.remove(path);
        if (kind === "fifo") {
          const made = await new Deno.Command("mkfifo", { args: [path] })
            .output();
          assert.ok(made.success);
        } else await Deno.symlink("/dev/zero", path);
        for (const args of commands) {
          const result = await runJpt(args, { cwd: ws.root, env: ws.env });
          assert.equal(result.code, 1, `${file} ${kind} ${args.join(" ")}`);
          assert.match(
            result.stderr,
            /not a regular file \(a (FIFO|character device)\)/,
            `${file} ${kind} ${args.join(" ")}: ${result.stderr}`,
          );
        }
      }
    }
  },
});

Deno.test("a file over JPT_MAX_FILE_BYTES is refused with the limit named", async () => {
  const { ws } = await workspaceWithConversation();
  await using _ = ws;
  const result = await runJpt(["turns"], {
    cwd: ws.root,
    env: { ...ws.env, JPT_MAX_FILE_BYTES: "1000" },
  });
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /events\.json.*over the limit of 1000 \(set JPT_MAX_FILE_BYTES/,
  );
});

Deno.test({
  name: "a symlinked events.json is written through: the link stays a link",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using server = FakeLlm.start(summaryResponder());
    const { ws, dir } = await workspaceWithConversation();
    await using _ = ws;
    const elsewhere = join(ws.root, "kept-elsewhere.json");
    await Deno.rename(join(dir, "events.json"), elsewhere);
    await Deno.symlink(elsewhere, join(dir, "events.json"));
    const result = await runJpt(
      ["--cfg", `providers.llm.ollama.base_url=${server.url}`, "summarize"],
      { cwd: ws.root, env: ws.env },
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /2 summarized/);
    assert.ok((await Deno.lstat(join(dir, "events.json"))).isSymlink);
    assert.match(await Deno.readTextFile(elsewhere), /Summarize turn/);
  },
});

Deno.test({
  name:
    "a conversation file linked out of the workspace is never written through; a private file stays private",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using server = FakeLlm.start(summaryResponder());
    const { ws, dir } = await workspaceWithConversation();
    await using _ = ws;
    const outside = await Deno.makeTempFile({ prefix: "jpt-outside-" });
    try {
      await Deno.copyFile(join(dir, "events.json"), outside);
      const before = await Deno.readFile(outside);
      await Deno.remove(join(dir, "events.json"));
      await Deno.symlink(outside, join(dir, "events.json"));
      const flags = ["--cfg", `providers.llm.ollama.base_url=${server.url}`];
      const refused = await runJpt([...flags, "summarize"], {
        cwd: ws.root,
        env: ws.env,
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stdout + refused.stderr, /symbolic link .*outside/);
      assert.deepEqual(await Deno.readFile(outside), before, "untouched");
      // A real file with mode 0600 keeps it when jpt writes it.
      await Deno.remove(join(dir, "events.json"));
      await Deno.writeFile(join(dir, "events.json"), before, { mode: 0o600 });
      await Deno.chmod(join(dir, "events.json"), 0o600);
      const written = await runJpt([...flags, "summarize"], {
        cwd: ws.root,
        env: ws.env,
      });
      assert.equal(written.code, 0, written.stdout + written.stderr);
      const info = await Deno.stat(join(dir, "events.json"));
      assert.equal(info.mode! & 0o777, 0o600);
      assert.match(
        await Deno.readTextFile(join(dir, "events.json")),
        /Summarize turn/,
      );
    } finally {
      await Deno.remove(outside);
    }
  },
});

Deno.test('a 2 GiB metadata.json is refused at once, naming the file and the limit: never "No conversations"', async () => {
  const { ws, dir } = await workspaceWithConversation();
  await using _ = ws;
  const metadata = join(dir, "metadata.json");
  const file = await Deno.open(metadata, { write: true, truncate: true });
  await file.truncate(2 * 1024 ** 3); // sparse: costs no disk
  file.close();
  for (const args of [["turns"], ["conversation", "ls"]]) {
    const result = await runJpt(args, { cwd: ws.root, env: ws.env });
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 1, `${args.join(" ")}: ${output}`);
    assert.ok(output.includes(metadata), output);
    assert.match(output, /over the limit of 16777216/);
    assert.doesNotMatch(output, /No conversations/);
  }
});

Deno.test("jpt check refuses a 2 GiB metadata.json or base_config.json at once with the 16 MiB limit, as every reader does", async () => {
  for (const name of ["metadata.json", "base_config.json"]) {
    const { ws, dir } = await workspaceWithConversation();
    await using _ = ws;
    const path = join(dir, name);
    const file = await Deno.open(path, {
      write: true,
      create: true,
      truncate: true,
    });
    await file.truncate(2 * 1024 ** 3); // sparse: costs no disk
    file.close();
    const result = await runJpt(["check", dir], { cwd: ws.root, env: ws.env });
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 1, output);
    assert.match(output, new RegExp(`${name}.*over the limit of 16777216`));
  }
});
