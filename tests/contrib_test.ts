/**
 * The service definitions in contrib/ parse (with the platform tool where it
 * exists: systemd-analyze, python's plistlib) and run `jpt watch`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { canRun } from "./support/can_run.ts";
import { REPO_ROOT } from "./support/paths.ts";

const CONTRIB = join(REPO_ROOT, "contrib");

Deno.test("the systemd --user unit has its sections and runs jpt watch", async () => {
  const text = await Deno.readTextFile(join(CONTRIB, "jpt-watch.service"));
  const sections = [...text.matchAll(/^\[(\w+)\]$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, ["Unit", "Service", "Install"]);
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("[")) continue;
    assert.match(line, /^[A-Za-z]+=.+$/, line);
  }
  assert.match(text, /^ExecStart=\S*jpt watch$/m);
  assert.match(text, /^KillSignal=SIGTERM$/m);
  if (canRun("systemd-analyze", ["--version"])) {
    const verify = await new Deno.Command("systemd-analyze", {
      args: ["verify", "--user", join(CONTRIB, "jpt-watch.service")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(verify.stderr);
    // The unit's paths do not exist on this machine; the syntax must be valid.
    assert.doesNotMatch(
      stderr,
      /Unknown (key|section)|Failed to parse/,
      stderr,
    );
  }
});

Deno.test({
  name: "the launchd agent is a valid property list that runs jpt watch",
  ignore: !canRun("python3", ["--version"]),
  async fn() {
    const output = await new Deno.Command("python3", {
      args: [
        "-c",
        "import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))))",
        join(CONTRIB, "dev.jpt.watch.plist"),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    const plist = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(plist.Label, "dev.jpt.watch");
    assert.deepEqual(plist.ProgramArguments.slice(-1), ["watch"]);
  },
});
