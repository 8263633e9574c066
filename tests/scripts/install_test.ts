import assert from "node:assert/strict";
import { join } from "node:path";
import denoConfig from "../../deno.json" with { type: "json" };
import { REPO_ROOT, testdata } from "../support/paths.ts";
import { HAS_SCRIPT, runInPty } from "../support/pty.ts";
import { jptEnv } from "../support/cli.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** A directory of links to the few programs a shell needs, without `deno`. */
async function pathWithoutDeno(root: string): Promise<string> {
  const dir = join(root, "path");
  await Deno.mkdir(dir);
  for (const name of ["sh", "stty", "ps", "cat"]) {
    for (const place of ["/usr/bin", "/bin"]) {
      if (await exists(join(place, name))) {
        await Deno.symlink(join(place, name), join(dir, name));
        break;
      }
    }
  }
  return dir;
}

Deno.test("deno task install gives a jpt that runs without deno on the PATH, in a coloured terminal, and uninstall removes it", async (t) => {
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
    const jpt = join(root, "bin", "jpt");
    const path = await pathWithoutDeno(root);
    // Deno's cache is found from HOME (or DENO_DIR), as in every CLI test.
    const env: Record<string, string> = {
      ...jptEnv(),
      PATH: path,
      JPT_DATA_DIR: join(root, "data"),
      JPT_CONFIG_DIR: join(root, "config"),
    };
    delete env.NO_COLOR;

    const installed = await task("install");
    assert.ok(installed.success, new TextDecoder().decode(installed.stderr));
    const shim = await Deno.readTextFile(jpt);
    assert.doesNotMatch(shim, /--allow-all|\s-A\s/, "not -A");
    assert.ok(
      shim.includes(`exec ${Deno.execPath()} run`),
      `Deno by its absolute path: ${shim}`,
    );
    assert.ok(shim.includes(join(REPO_ROOT, "main.ts")), shim);
    assert.equal((await Deno.stat(jpt)).mode! & 0o777, 0o755);

    await t.step("piped, with no deno on the PATH", async () => {
      const output = await new Deno.Command(jpt, {
        args: ["--version"],
        cwd: "/",
        clearEnv: true,
        env,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(
        new TextDecoder().decode(output.stdout).trim(),
        denoConfig.version,
        new TextDecoder().decode(output.stderr),
      );
    });

    await t.step({
      name: "in a pseudo-terminal with colour: --version, turns, find",
      ignore: !HAS_SCRIPT,
      fn: async () => {
        const workspace = testdata("workspace");
        const run = (line: string) =>
          runInPty(line, { cwd: "/", env, program: jpt });
        const version = await run("jpt --version");
        assert.equal(version.code, 0, version.output);
        assert.ok(version.output.includes(denoConfig.version), version.output);
        const turns = await run(`jpt turns -w '${workspace}'`);
        assert.equal(turns.code, 0, turns.output);
        assert.ok(turns.output.includes("\x1b["), "coloured");
        assert.match(turns.output, /Add retry backoff to stream handler/);
        const find = await run(`jpt find retry -w '${workspace}'`);
        assert.equal(find.code, 0, find.output);
        assert.ok(find.output.includes("\x1b["), "coloured");
        assert.match(find.output, /retry/i);
      },
    });

    const removed = await task("uninstall");
    assert.ok(removed.success, new TextDecoder().decode(removed.stderr));
    assert.equal(await exists(jpt), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
