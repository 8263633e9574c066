/**
 * Builds the release archives: `deno compile` for each target (cross-compiled
 * from one runner), then `jpt-<version>-<target>.tar.gz` (`.zip` for Windows)
 * holding the binary, README.md and LICENSE, with a `.sha256` beside each.
 *
 * Usage: `deno task pack [--target TRIPLE]` (default: every target). Needs
 * network access for the runtime `deno compile` downloads, so it runs in the
 * release workflow, not on our development machines.
 *
 * @module
 */

import { join } from "node:path";
import denoConfig from "../deno.json" with { type: "json" };
import { TARGETS } from "./targets.ts";

const OUT = "dist/release";

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
  const only = Deno.args.indexOf("--target") >= 0
    ? Deno.args[Deno.args.indexOf("--target") + 1]
    : undefined;
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
    // The compile block of deno.json supplies the permissions the binary runs with.
    await run(Deno.execPath(), [
      "compile",
      "--target",
      target.target,
      "--output",
      join(stage, target.binary),
      "main.ts",
    ]);
    await Deno.copyFile("README.md", join(stage, "README.md"));
    await Deno.copyFile("LICENSE", join(stage, "LICENSE"));
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
