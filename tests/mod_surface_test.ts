import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./support/paths.ts";

/** The names an entry point documents, from `deno doc --json`. */
async function documentedNames(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", join(REPO_ROOT, entry)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols?: Array<{ name: string }> }>;
  };
  return Object.values(doc.nodes).flatMap((node) =>
    (node.symbols ?? []).map((symbol) => symbol.name)
  );
}

Deno.test("the stable core (mod.ts) documents at most 40 names, and the flows are not among them", async () => {
  const names = await documentedNames("mod.ts");
  assert.ok(names.length > 20, names.join(", "));
  assert.ok(names.length <= 40, `${names.length}: ${names.join(", ")}`);
  for (
    const name of [
      "ConversationStream",
      "Workspace",
      "withConversation",
      "turnFingerprint",
    ]
  ) {
    assert.ok(names.includes(name), name);
  }
  for (const flow of ["runTurn", "catchUpConversation", "backfill"]) {
    assert.ok(!names.includes(flow), flow);
  }
  const unstable = await documentedNames("unstable.ts");
  for (const flow of ["runTurn", "catchUpConversation", "backfill"]) {
    assert.ok(unstable.includes(flow), flow);
  }
});
