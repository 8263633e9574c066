/**
 * `deno task install`: installs `jpt` from this clone, as a command on the
 * PATH (`$DENO_INSTALL_ROOT/bin`, else Deno's default `~/.deno/bin`), with
 * the permissions jpt needs (files, the environment, the network, starting
 * its worker and the editor, the system's facts; not `-A`). What it runs is
 * this clone built as a code-split bundle (`scripts/chunked_build.ts`, with
 * the npm versions this clone's `deno.lock` pins) in `bin/.jpt/build`: it
 * starts faster than the sources. Upgrading is running it again. `deno task
 * uninstall` removes it.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JPT_PERMISSIONS } from "../src/cli/jpt_permissions.ts";
import { buildChunked } from "./chunked_build.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** In the build directory: the files of the installed build and of the one before. */
const MANIFEST = "files.json";

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

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

async function readManifest(build: string): Promise<string[]> {
  try {
    const { files } = JSON.parse(
      await Deno.readTextFile(join(build, MANIFEST)),
    );
    return Array.isArray(files) ? files.map(String) : [];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    if (error instanceof SyntaxError) return [];
    throw error;
  }
}

/**
 * Builds this clone into `home/build` and returns its entry. A jpt that is
 * running (`jpt watch`) keeps loading its chunks from there, so the new
 * files move in beside the old ones (chunks are named by their content),
 * `cli.js` last; then the files of neither this build nor the one before
 * it are removed.
 */
async function installBuild(home: string): Promise<string> {
  const build = join(home, "build");
  await Deno.mkdir(build, { recursive: true });
  const staging = await Deno.makeTempDir({ dir: home, prefix: "staging-" });
  try {
    const files = await buildChunked(staging);
    const previous = await readManifest(build);
    for (
      const name of [...files.filter((file) => file !== "cli.js"), "cli.js"]
    ) {
      await Deno.rename(join(staging, name), join(build, name));
    }
    await Deno.writeTextFile(
      join(build, MANIFEST),
      JSON.stringify({ files, previous }) + "\n",
    );
    const keep = new Set([...files, ...previous, MANIFEST]);
    for await (const entry of Deno.readDir(build)) {
      if (!keep.has(entry.name)) await removeIfPresent(join(build, entry.name));
    }
  } finally {
    await removeIfPresent(staging);
  }
  return join(build, "cli.js");
}

if (import.meta.main) {
  const bin = binDir();
  const home = join(bin, ".jpt");
  if (Deno.args.includes("--uninstall")) {
    await run(["uninstall", "-g", "jpt"]);
    await removeIfPresent(home);
  } else {
    await Deno.mkdir(home, { recursive: true });
    // Earlier installs ran the sources with a copy of the clone's lock here.
    await removeIfPresent(join(home, "deno.lock"));
    const entry = await installBuild(home).catch((error) => {
      // The jpt installed before, if any, is left as it was.
      console.error(`error: building jpt failed: ${error.message ?? error}`);
      Deno.exit(1);
    });
    await run([
      "install",
      "-g",
      "-f",
      "--quiet",
      "--name",
      "jpt",
      // The build has no imports to map: node: modules and its own files.
      "--no-config",
      ...JPT_PERMISSIONS,
      entry,
    ]);
    console.log(`jpt installed: ${join(bin, "jpt")}`);
    if (!(Deno.env.get("PATH") ?? "").split(":").includes(bin)) {
      console.log(`Add ${bin} to your PATH to type jpt anywhere.`);
    }
  }
}
