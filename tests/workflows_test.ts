/**
 * The GitHub workflows cannot run here, so they are checked as data: valid
 * YAML, the steps each job needs, Deno pinned in one place, and the release
 * matrix equal to the pack script's target table.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import denoConfig from "../deno.json" with { type: "json" };
import { TARGETS } from "../scripts/targets.ts";
import { tagMatchesVersion } from "../scripts/check_version.ts";
import { REPO_ROOT } from "./support/paths.ts";

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "runs-on": string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  strategy?: { "fail-fast"?: boolean; matrix?: Record<string, unknown[]> };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const workflow = (name: string) =>
  parse(
    Deno.readTextFileSync(join(REPO_ROOT, ".github", "workflows", name)),
  ) as Workflow;
const runs = (job: Job) => job.steps.map((step) => step.run ?? "").join("\n");

function assertPinnedDeno(job: Job): void {
  const setup = job.steps.find((step) =>
    step.uses?.startsWith("denoland/setup-deno@")
  );
  assert.ok(setup, "the job installs Deno");
  assert.equal(
    setup.with?.["deno-version-file"],
    ".deno-version",
    "Deno is pinned in .deno-version only",
  );
}

Deno.test("ci.yml checks format, lint, types, tests and publishing on every OS", () => {
  const ci = workflow("ci.yml");
  assert.ok("push" in ci.on && "pull_request" in ci.on);
  const job = ci.jobs.check!;
  assert.equal(job.strategy?.["fail-fast"], false);
  assert.deepEqual(job.strategy?.matrix?.os, [
    "ubuntu-latest",
    "macos-latest",
    "windows-latest",
  ]);
  assertPinnedDeno(job);
  for (
    const command of [
      "deno fmt --check",
      "deno lint",
      "deno task check",
      "deno task doc-lint",
      "deno task imports",
      "deno task test",
      "deno publish --dry-run",
    ]
  ) {
    assert.ok(runs(job).includes(command), command);
  }
});

Deno.test("release.yml checks the tag, compiles every target, releases and publishes to JSR", () => {
  const release = workflow("release.yml");
  assert.deepEqual(release.on, { push: { tags: ["v*"] } });
  const { version, binaries, "github-release": githubRelease, jsr } =
    release.jobs;
  assert.ok(version && binaries && githubRelease && jsr);
  assert.match(
    runs(version),
    /scripts\/check_version\.ts "\$\{GITHUB_REF_NAME\}"/,
  );
  assert.deepEqual(
    binaries.strategy?.matrix?.target,
    TARGETS.map((target) => target.target),
    "matrix = pack script targets",
  );
  assert.match(
    runs(binaries),
    /deno task pack --target \$\{\{ matrix\.target \}\}/,
  );
  assert.equal(binaries.needs, "version");
  assert.equal(githubRelease.permissions?.contents, "write");
  assert.match(runs(githubRelease), /gh release create/);
  assert.equal(jsr.permissions?.["id-token"], "write");
  assert.match(runs(jsr), /deno publish/);
  for (const job of [version, binaries, jsr]) assertPinnedDeno(job);
});

Deno.test("the release targets and version checks are consistent", () => {
  assert.deepEqual(TARGETS.map((target) => target.target).sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.ok(
    TARGETS.every((target) =>
      (target.archive === "zip") === target.target.includes("windows")
    ),
  );
  assert.equal(tagMatchesVersion(`v${denoConfig.version}`), true);
  assert.equal(tagMatchesVersion(denoConfig.version), false);
  assert.equal(tagMatchesVersion("v9.9.9"), false);
  assert.equal(
    Deno.readTextFileSync(join(REPO_ROOT, ".deno-version")).trim(),
    "2.9.6",
  );
  assert.equal(denoConfig.compile.permissions, "jpt");
  assert.deepEqual(Object.keys(denoConfig.permissions.jpt).sort(), [
    "env",
    "net",
    "read",
    "run",
    "write",
  ]);
});

Deno.test("action.yml is a composite action that runs jpt check with GitHub annotations, Deno pinned", () => {
  const action = parse(
    Deno.readTextFileSync(join(REPO_ROOT, "action.yml")),
  ) as {
    name: string;
    inputs: Record<string, { default: string }>;
    runs: { using: string; steps: Array<Step & { shell?: string }> };
  };
  assert.equal(action.runs.using, "composite");
  assert.deepEqual(Object.keys(action.inputs).sort(), [
    "fail-on-warnings",
    "paths",
  ]);
  const script = action.runs.steps.map((step) => step.run ?? "").join("\n");
  assert.match(script, /check --format github/);
  const deno = Deno.readTextFileSync(join(REPO_ROOT, ".deno-version")).trim();
  assert.ok(script.includes(`deno@${deno}`), "Deno pinned as everywhere");
  assert.ok(action.runs.steps.every((step) => step.shell === "bash"));
  // Inputs reach the script through the environment, never pasted into it.
  assert.doesNotMatch(script, /\$\{\{/);
});

Deno.test("action.yml's script runs this checkout's jpt check on a workspace and prints annotations (a stand-in npx runs deno)", async () => {
  const action = parse(
    Deno.readTextFileSync(join(REPO_ROOT, "action.yml")),
  ) as { runs: { steps: Array<Step> } };
  const script = action.runs.steps.map((step) => step.run ?? "").join("\n");
  const bin = await Deno.makeTempDir();
  try {
    // npx -y deno@X run … → deno run …
    await Deno.writeTextFile(
      join(bin, "npx"),
      `#!/bin/sh\nshift 2\nexec '${Deno.execPath()}' "$@"\n`,
      { mode: 0o755 },
    );
    const broken = join(bin, "ws");
    await Deno.mkdir(join(broken, ".jp", "conversations", "17800000000"), {
      recursive: true,
    });
    await Deno.writeTextFile(join(broken, ".jp", ".id"), "x\nactio\n");
    await Deno.writeTextFile(
      join(broken, ".jp", "conversations", "17800000000", "events.json"),
      '[\n  {"type": "turn_start", "timestamp": 7}\n]\n',
    );
    await Deno.writeTextFile(
      join(broken, ".jp", "conversations", "17800000000", "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
    const run = (paths: string) =>
      new Deno.Command("bash", {
        args: ["-c", script],
        cwd: REPO_ROOT,
        env: {
          PATH: `${bin}:${Deno.env.get("PATH")}`,
          JPT_PATHS: paths,
          JPT_ACTION_PATH: REPO_ROOT,
          JPT_FAIL_ON_WARNINGS: "false",
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const good = await run("testdata/workspace");
    assert.equal(good.code, 0, new TextDecoder().decode(good.stderr));
    const bad = await run(broken);
    const out = new TextDecoder().decode(bad.stdout);
    assert.equal(bad.code, 1, out);
    assert.match(out, /^::error file=.*events\.json,line=2,col=\d+::/m);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});
