import assert from "node:assert/strict";
import { join } from "node:path";
import denoConfig from "../../deno.json" with { type: "json" };
import { REPO_ROOT } from "../support/paths.ts";

Deno.test("deno task install gives a jpt that runs from / with the version of deno.json; uninstall removes it", async () => {
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
    const installed = await task("install");
    assert.ok(installed.success, new TextDecoder().decode(installed.stderr));
    const jpt = join(root, "bin", "jpt");
    const shim = await Deno.readTextFile(jpt);
    assert.doesNotMatch(shim, /--allow-all|\s-A\s/, "not -A");
    const version = await new Deno.Command(jpt, {
      args: ["--version"],
      cwd: "/",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(version.success, new TextDecoder().decode(version.stderr));
    assert.equal(
      new TextDecoder().decode(version.stdout).trim(),
      denoConfig.version,
    );
    const removed = await task("uninstall");
    assert.ok(removed.success, new TextDecoder().decode(removed.stderr));
    assert.equal(await Deno.stat(jpt).then(() => true, () => false), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
