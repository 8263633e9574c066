/**
 * A scripted `$EDITOR` for tests: `deno run -A scripted_editor.ts FILE`
 * applies the edits in `$JPT_TEST_EDIT` (JSON) to FILE and to files beside
 * it, as a person would in an editor, then exits (with `exit` code, if any).
 * It appends every file it was opened on to `$JPT_TEST_EDITOR_LOG`.
 *
 * Edits: `{"op": "replace", "find", "with"}` (first occurrence in FILE),
 * `{"op": "deleteLines", "match"}` (lines of FILE matching a regex),
 * `{"op": "replaceInFile", "file", "find", "with"}` (a file beside FILE,
 * named by a regex), `{"op": "clear"}`, `{"op": "exit", "code"}`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";

type Edit =
  | { op: "replace"; find: string; with: string }
  | { op: "deleteLines"; match: string }
  | { op: "replaceInFile"; file: string; find: string; with: string }
  | { op: "clear" }
  | { op: "exit"; code: number };

const file = resolve(Deno.args[0]!);
const log = Deno.env.get("JPT_TEST_EDITOR_LOG");
if (log) await Deno.writeTextFile(log, `${file}\n`, { append: true });
const edits = JSON.parse(Deno.env.get("JPT_TEST_EDIT") ?? "[]") as Edit[];
let text = await Deno.readTextFile(file);
for (const edit of edits) {
  switch (edit.op) {
    case "replace":
      if (!text.includes(edit.find)) {
        throw new Error(`scripted editor: "${edit.find}" not found`);
      }
      text = text.replace(edit.find, edit.with);
      break;
    case "deleteLines":
      text = text.split("\n").filter((line) =>
        !new RegExp(edit.match).test(line)
      ).join("\n");
      break;
    case "replaceInFile": {
      const dir = dirname(file);
      const name = [...Deno.readDirSync(dir)].map((item) => item.name).find((
        n,
      ) => new RegExp(edit.file).test(n));
      if (name === undefined) {
        throw new Error(`scripted editor: no file matches ${edit.file}`);
      }
      const path = join(dir, name);
      const content = await Deno.readTextFile(path);
      if (!content.includes(edit.find)) {
        throw new Error(`scripted editor: "${edit.find}" not in ${name}`);
      }
      await Deno.writeTextFile(path, content.replace(edit.find, edit.with));
      break;
    }
    case "clear":
      text = "";
      break;
    case "exit":
      await Deno.writeTextFile(file, text);
      Deno.exit(edit.code);
  }
}
await Deno.writeTextFile(file, text);
