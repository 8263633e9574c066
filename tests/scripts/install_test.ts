import assert from "node:assert/strict";
import { join } from "node:path";
import denoConfig from "../../deno.json" with { type: "json" };
import { REPO_ROOT, testdata } from "../support/paths.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("deno task install gives a jpt that runs the chunked build from /, keeps the build before for running processes, and uninstall removes it", async () => {
  const root = await Deno.makeTempDir({ prefix: "jpt-install-" });
  try {
    const task = (name: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", name],
        cwd: REPO_ROOT,
        env: { DENO_INSTALL_ROOT: root, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const jptOutput = async (...args: string[]) => {
      const output = await new Deno.Command(join(root, "bin", "jpt"), {
        args,
        cwd: "/",
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(output.success, new TextDecoder().decode(output.stderr));
      return new TextDecoder().decode(output.stdout);
    };
    const build = join(root, "bin", ".jpt", "build");
    // An earlier install: the build before it and the one before that.
    await Deno.mkdir(build, { recursive: true });
    await Deno.writeTextFile(join(build, "previous-AAAA.js"), "");
    await Deno.writeTextFile(join(build, "older-BBBB.js"), "");
    await Deno.writeTextFile(
      join(build, "files.json"),
      JSON.stringify({
        files: ["previous-AAAA.js"],
        previous: ["older-BBBB.js"],
      }),
    );

    const installed = await task("install");
    assert.ok(installed.success, new TextDecoder().decode(installed.stderr));
    const shim = await Deno.readTextFile(join(root, "bin", "jpt"));
    assert.doesNotMatch(shim, /--allow-all|\s-A\s/, "not -A");
    assert.match(shim, /\.jpt\/build\/cli\.js/);
    assert.equal(await exists(join(build, "previous-AAAA.js")), true);
    assert.equal(await exists(join(build, "older-BBBB.js")), false);

    assert.equal((await jptOutput("--version")).trim(), denoConfig.version);
    assert.match(
      await jptOutput("turns", "-w", testdata("workspace")),
      /^# Turn 1 \(k3m9x2a\): Add retry backoff to stream handler\n/,
    );

    const removed = await task("uninstall");
    assert.ok(removed.success, new TextDecoder().decode(removed.stderr));
    assert.equal(await exists(join(root, "bin", "jpt")), false);
    assert.equal(await exists(join(root, "bin", ".jpt")), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
