/**
 * `deno task install`: installs `jpt` from this clone, as a command on the
 * PATH (`$DENO_INSTALL_ROOT/bin`, else Deno's default `~/.deno/bin`), with
 * the permissions jpt needs (files, the environment, the network, starting
 * its worker and the editor, the system's facts; not `-A`), and the npm
 * versions this clone's `deno.lock` pins. Upgrading is running it again.
 * `deno task uninstall` removes it.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JPT_PERMISSIONS } from "../src/cli/plugin_install.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where `deno install -g` puts commands: `$DENO_INSTALL_ROOT/bin`, else `~/.deno/bin`. */
function binDir(): string {
  const root = Deno.env.get("DENO_INSTALL_ROOT") ??
    join(Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".", ".deno");
  return join(root, "bin");
}

async function run(args: string[]): Promise<void> {
  const { success } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) Deno.exit(1);
}

if (import.meta.main) {
  const bin = binDir();
  if (Deno.args.includes("--uninstall")) {
    await run(["uninstall", "-g", "jpt"]);
  } else {
    // The install keeps its own copy of deno.json and its lock beside the
    // command: seeded with this clone's lock, so the same versions run.
    const home = join(bin, ".jpt");
    await Deno.mkdir(home, { recursive: true });
    await Deno.copyFile(join(ROOT, "deno.lock"), join(home, "deno.lock"));
    await run([
      "install",
      "-g",
      "-f",
      "--quiet",
      "--name",
      "jpt",
      "--config",
      "deno.json",
      // The copied lock is written as deno resolves; versions come from it.
      "--frozen=false",
      ...JPT_PERMISSIONS,
      "main.ts",
    ]);
    console.log(`jpt installed: ${join(bin, "jpt")}`);
    if (!(Deno.env.get("PATH") ?? "").split(":").includes(bin)) {
      console.log(`Add ${bin} to your PATH to type jpt anywhere.`);
    }
  }
}
