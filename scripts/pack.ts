/**
 * Builds the release archives: `deno compile` for each target (cross-compiled
 * from one runner), then `jpt-<version>-<target>.tar.gz` (`.zip` for Windows)
 * holding the binary, README.md, LICENSE, the man page (`jpt.1`) and the
 * shell completions (`completions/jpt.bash`, `jpt.zsh`, `jpt.fish`), with a
 * `.sha256` beside each. The man page and completions come from running jpt
 * itself (`--entry`, default `main.ts`): the same for every target.
 *
 * Usage: `deno task pack [--target TRIPLE]` (default: every target). `deno
 * compile` needs network access for the runtime it downloads, so it runs in
 * the release workflow; CI runs everything else on the bundled file with
 * `--binary dist/jpt.js --entry dist/jpt.js --out DIR` (the file stands in
 * for the binary), so a release cannot fail on the steps around the compile.
 *
 * @module
 */

import { join } from "node:path";
import denoConfig from "../deno.json" with { type: "json" };
import { TARGETS } from "./targets.ts";

/** The value after a flag, if the flag is given. */
function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}

/** What jpt prints for some arguments, run from `entry`. */
async function jptOutput(entry: string, args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", entry, ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`jpt ${args.join(" ")} failed`);
  return new TextDecoder().decode(output.stdout);
}

async function run(
  command: string,
  args: string[],
  cwd = ".",
): Promise<void> {
  const status = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed with exit code ${status.code}`,
    );
  }
}

async function sha256(path: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", await Deno.readFile(path)),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );
}

if (import.meta.main) {
  const only = flag("--target");
  const given = flag("--binary");
  const entry = flag("--entry") ?? "main.ts";
  const OUT = flag("--out") ?? "dist/release";
  const targets = TARGETS.filter((target) =>
    only === undefined || target.target === only
  );
  if (targets.length === 0) {
    throw new Error(
      `Unknown target "${only}" (known: ${
        TARGETS.map((t) => t.target).join(", ")
      })`,
    );
  }
  await Deno.mkdir(OUT, { recursive: true });
  for (const target of targets) {
    const name = `jpt-${denoConfig.version}-${target.target}`;
    const stage = join(OUT, name);
    await Deno.mkdir(stage, { recursive: true });
    if (given === undefined) {
      // The compile block of deno.json supplies the permissions the binary runs with.
      await run(Deno.execPath(), [
        "compile",
        "--target",
        target.target,
        "--output",
        join(stage, target.binary),
        "cli.ts",
      ]);
    } else await Deno.copyFile(given, join(stage, target.binary));
    await Deno.copyFile("README.md", join(stage, "README.md"));
    await Deno.copyFile("LICENSE", join(stage, "LICENSE"));
    await Deno.writeTextFile(
      join(stage, "jpt.1"),
      await jptOutput(entry, ["man"]),
    );
    await Deno.mkdir(join(stage, "completions"));
    for (const shell of ["bash", "zsh", "fish"]) {
      await Deno.writeTextFile(
        join(stage, "completions", `jpt.${shell}`),
        await jptOutput(entry, ["completions", shell]),
      );
    }
    const archive = `${name}.${target.archive}`;
    if (target.archive === "zip") await run("zip", ["-r", archive, name], OUT);
    else await run("tar", ["-czf", archive, name], OUT);
    await Deno.remove(stage, { recursive: true });
    await Deno.writeTextFile(
      join(OUT, `${archive}.sha256`),
      `${await sha256(join(OUT, archive))}  ${archive}\n`,
    );
    console.log(`built ${join(OUT, archive)}`);
  }
}
