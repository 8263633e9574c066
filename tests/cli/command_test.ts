import assert from "node:assert/strict";
import {
  CliExit,
  CliUsageError,
  Command,
  InvalidArgumentError,
  Option,
} from "../../src/cli/command.ts";
import { formatHelp } from "../../src/cli/help_text.ts";

/** A small program; returns what the action received and what was printed. */
async function run(argv: string[]) {
  const printed = { out: "", err: "" };
  let received: unknown[] | undefined;
  const root = new Command("tool");
  root.showGlobalOptions = true;
  const program = root.version("1.2.3")
    .option("-v, --verbose", "more")
    .option(
      "-c, --cfg <value>",
      "repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .configureOutput({
      writeOut: (text) => printed.out += text,
      writeErr: (text) => printed.err += text,
      formatHelp,
    }, "(run with --help for usage)");
  program.command("list")
    .alias("ls")
    .argument("[target]", "what to list")
    .option("-n, --last <n>", "how many", (value: string) => {
      const n = Number(value);
      if (!Number.isInteger(n)) throw new InvalidArgumentError("not whole");
      return n;
    })
    .option("--title <text>", "a title")
    .option("--no-title", "no title")
    .option("--no-wait", "do not wait")
    .option("--forget <id...>", "ids")
    .option("-E, --regex", "regex")
    .addOption(
      new Option("--format <format>", "how").choices(["a", "b"] as const)
        .default("a"),
    )
    .action((target, opts) => {
      received = [target, opts];
    });
  const group = program.command("group").description("a group");
  group.command("inner").requiredOption("--id <id>", "the id").action(
    (opts) => {
      received = [opts];
    },
  );
  let outcome: unknown;
  try {
    await program.parseAsync(argv);
  } catch (error) {
    outcome = error;
  }
  return { received, printed, outcome, globals: program.opts() };
}

Deno.test("options: values, inline values, parsers, defaults, negation, lists, short clusters, globals after the command", async () => {
  const { received, globals } = await run([
    "ls",
    "x",
    "-n5",
    "--title=Hi",
    "--no-wait",
    "--forget",
    "a",
    "b",
    "-vE",
    "-c",
    "k=1",
    "--cfg",
    "k=2",
  ]);
  assert.deepEqual(received, ["x", {
    last: 5,
    title: "Hi",
    wait: false,
    forget: ["a", "b"],
    regex: true,
    format: "a",
  }]);
  assert.deepEqual(globals, { verbose: true, cfg: ["k=1", "k=2"] });
  // `--title` beside `--no-title`: neither given means neither is set.
  const plain = await run(["list"]);
  assert.deepEqual(plain.received, [undefined, { wait: true, format: "a" }]);
  assert.deepEqual((await run(["list", "--no-title"])).received?.[1], {
    title: false,
    wait: true,
    format: "a",
  });
});

Deno.test("usage errors name the problem, suggest the near miss, and end with the hint", async () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ["lst"],
      /^error: unknown command 'lst'\n\(Did you mean list\?\)\n\(run with --help for usage\)\n$/,
    ],
    [["list", "--regx"], /unknown option '--regx'\n\(Did you mean --regex\?\)/],
    [
      ["list", "-n", "x"],
      /option '-n, --last <n>' argument 'x' is invalid\. not whole/,
    ],
    [["list", "--last"], /option '-n, --last <n>' argument missing/],
    [["list", "--format", "c"], /Allowed choices are a, b\./],
    [
      ["list", "a", "b"],
      /too many arguments for 'list'\. Expected 1 argument but got 2\./,
    ],
    [["group", "inner"], /required option '--id <id>' not specified/],
    [["list", "--regex=yes"], /takes no value/],
  ];
  for (const [argv, message] of cases) {
    const { outcome, printed } = await run(argv);
    assert.ok(outcome instanceof CliUsageError, argv.join(" "));
    assert.match(printed.err, message, argv.join(" "));
  }
});

Deno.test("help, help COMMAND, --version, and a group without its command", async () => {
  const help = await run(["list", "--help"]);
  assert.ok(help.outcome instanceof CliExit && help.outcome.code === 0);
  assert.match(
    help.printed.out,
    /^Usage: tool list\|ls \[options\] \[target\]\n/,
  );
  assert.match(
    help.printed.out,
    /--format <format> +how \(choices: "a", "b", default: "a"\)/,
  );
  assert.match(help.printed.out, /Global Options:\n {2}-V, --version/);
  const named = await run(["help", "group"]);
  assert.match(named.printed.out, /^Usage: tool group \[options\] \[command\]/);
  assert.match(
    named.printed.out,
    /Commands:\n {2}inner \[options\]\n {2}help \[command\]/,
  );
  const version = await run(["--version"]);
  assert.equal(version.printed.out, "1.2.3\n");
  const bare = await run(["group"]);
  assert.ok(bare.outcome instanceof CliExit && bare.outcome.code === 2);
  assert.match(bare.printed.err, /^Usage: tool group/);
  const dashdash = await run(["list", "--", "--not-an-option"]);
  assert.deepEqual(dashdash.received?.[0], "--not-an-option");
});
