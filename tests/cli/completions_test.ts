import assert from "node:assert/strict";
import { runJpt } from "../support/cli.ts";

const hasBash = (() => {
  try {
    return new Deno.Command("bash", { args: ["--version"], stdout: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

async function bashComplete(
  script: string,
  words: string[],
): Promise<string[]> {
  const program = `${script}\nCOMP_WORDS=(${
    words.map((w) => `'${w}'`).join(" ")
  }); COMP_CWORD=${words.length - 1}; _jpt; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const output = await new Deno.Command("bash", {
    args: ["-c", program],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout).split("\n").filter((line) =>
    line !== ""
  );
}

Deno.test({
  name: "jpt completions bash completes commands, subcommands and options",
  ignore: !hasBash,
  async fn() {
    const { code, stdout } = await runJpt(["completions", "bash"]);
    assert.equal(code, 0);
    assert.deepEqual(await bashComplete(stdout, ["jpt", "su"]), ["summarize"]);
    assert.deepEqual(await bashComplete(stdout, ["jpt", "conversation", ""]), [
      "ls",
      "list",
      "-h",
      "--help",
    ]);
    assert.deepEqual(await bashComplete(stdout, ["jpt", "summarize", "--d"]), [
      "--dry-run",
    ]);
    assert.deepEqual(
      await bashComplete(stdout, ["jpt", "-w", "x", "turns", "--j"]),
      ["--json"],
    );
  },
});

Deno.test("jpt completions zsh and fish list every command", async () => {
  const zsh = await runJpt(["completions", "zsh"]);
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /^#compdef jpt\n/);
  const fish = await runJpt(["completions", "fish"]);
  assert.equal(fish.code, 0);
  for (
    const command of [
      "conversation",
      "turns",
      "check",
      "query",
      "summarize",
      "config",
      "models",
      "completions",
    ]
  ) {
    assert.ok(zsh.stdout.includes(`'${command}:`), `zsh lists ${command}`);
    assert.ok(fish.stdout.includes(`-a '${command}'`), `fish lists ${command}`);
  }
  assert.match(
    fish.stdout,
    /complete -c jpt -n '__fish_seen_subcommand_from summarize' -l dry-run -d/,
  );
  const bad = await runJpt(["completions", "tcsh"]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /'tcsh' is invalid .* Allowed choices are bash, zsh, fish/,
  );
});

Deno.test({
  name: "jpt completions bash follows aliases and completes conversation ids",
  ignore: !hasBash,
  async fn() {
    const { stdout } = await runJpt(["completions", "bash"]);
    const bin = await Deno.makeTempDir();
    try {
      // A `jpt` on PATH that lists the sample workspace's conversations.
      await Deno.writeTextFile(
        `${bin}/jpt`,
        `#!/bin/sh\nprintf '[\\n  {\\n    "id": "jp-c17800000000"\\n  },\\n  {\\n    "id": "jp-c17800000001"\\n  }\\n]\\n'\n`,
      );
      await Deno.chmod(`${bin}/jpt`, 0o755);
      const script = `PATH='${bin}':$PATH\n${stdout}`;
      assert.deepEqual(await bashComplete(script, ["jpt", "q", "--n"]), [
        "--new",
        "--no-persist",
        "--no-title",
      ]);
      assert.deepEqual(await bashComplete(script, ["jpt", "c", ""]), [
        "ls",
        "list",
        "-h",
        "--help",
      ]);
      assert.deepEqual(
        await bashComplete(script, ["jpt", "query", "--id", "jp-c1780000000"]),
        ["jp-c17800000000", "jp-c17800000001"],
      );
      assert.deepEqual(
        await bashComplete(script, ["jpt", "turns", "jp-"]),
        ["jp-c17800000000", "jp-c17800000001"],
      );
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});
