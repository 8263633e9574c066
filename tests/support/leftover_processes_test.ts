import assert from "node:assert/strict";
import { join } from "node:path";
import { eventually } from "./eventually.ts";
import { processesInside } from "./leftover_processes.ts";
import { tempWorkspace } from "./workspace.ts";

Deno.test({
  name:
    "a test's workspace ends the processes left inside it before it is removed",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const ws = await tempWorkspace();
    const base = join(ws.root, "..");
    // A detached process, as a summary worker is: nobody waits for it.
    const child = new Deno.Command("sleep", {
      args: ["30"],
      cwd: ws.root,
      stdout: "null",
      stderr: "null",
    }).spawn();
    const status = child.status;
    const inside = Deno.realPathSync(base);
    await eventually(
      "the child has started in the workspace",
      () => Promise.resolve(processesInside(inside).includes(child.pid)),
    );
    await ws.dispose();
    assert.equal((await status).signal, "SIGKILL");
    assert.throws(() => Deno.statSync(base), Deno.errors.NotFound);
  },
});
