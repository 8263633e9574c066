/**
 * Checks the import graph of `src/` (from `deno info --json` of the entry
 * points, so type-only and lazily loaded imports count too):
 *
 * - no file imports itself back through others (no file cycle);
 * - no `src/` folder imports another that imports it back (no folder cycle);
 * - no file in `src/cli/` imports more than {@linkcode MAX_CLI_IMPORTS}
 *   modules from outside `src/cli/` (commands parse arguments, call one flow
 *   and format its result);
 * - no file in `src/app/` imports more than {@linkcode MAX_APP_IMPORTS}
 *   modules (a flow that needs more is doing several things); neither limit
 *   counts `src/platform/lazy_import.ts`, which is how modules load, not what they use;
 * - every import between folders goes down the documented layers
 *   ({@linkcode LAYERS}, as ARCHITECTURE.md draws them): a folder imports only
 *   folders on a lower floor, never one beside it or above it;
 * - no file of `src/` imports a file of `src/` by a literal dynamic import
 *   (`import("./x.ts")`): Deno reads the whole graph of such a module when
 *   the importing one loads, so lazy modules go through `importLazily`
 *   (`src/platform/lazy_import.ts`).
 *
 * Run with `deno task imports`; exits 1 and names every violation.
 *
 * @module
 */

import { relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

/** The most modules outside `src/cli/` one CLI file may import. */
export const MAX_CLI_IMPORTS = 5;

/** The most modules one file of `src/app/` may import. */
export const MAX_APP_IMPORTS = 15;

/**
 * The floors of `src/`, top first (ARCHITECTURE.md, "Layers"): folders on
 * one line share a floor and may not import each other.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["cli"],
  ["web"],
  ["app"],
  ["task"],
  ["labels"],
  ["summary", "edit"],
  ["llm"],
  ["config"],
  ["workspace"],
  ["conversation"],
  ["errors"],
  ["platform"],
];

/** The floor of a `src/` folder (0 is the top); `undefined` when not drawn. */
function floorOf(folder: string): number | undefined {
  const name = folder.replace(/^src\//, "");
  const floor = LAYERS.findIndex((names) => names.includes(name));
  return floor < 0 ? undefined : floor;
}

const ROOT = fromFileUrl(new URL("../", import.meta.url));
const ENTRY_POINTS = ["main.ts", "cli.ts", "mod.ts", "unstable.ts"];

interface InfoModule {
  specifier: string;
  dependencies?: Array<{
    specifier: string;
    code?: { specifier: string };
    type?: { specifier: string };
    isDynamic?: boolean;
  }>;
}

/** File → the files and packages it imports, relative to the repository. */
type ImportGraph = Map<string, Set<string>>;

/** File → the files of `src/` it imports by a literal dynamic import. */
type DynamicImports = Map<string, Set<string>>;

async function importGraph(): Promise<
  { graph: ImportGraph; dynamic: DynamicImports }
> {
  const graph: ImportGraph = new Map();
  const dynamic: DynamicImports = new Map();
  for (const entry of ENTRY_POINTS) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno info ${entry} failed`);
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: InfoModule[];
    };
    for (const module of info.modules) {
      const from = name(module.specifier);
      if (!from.startsWith("src/")) continue;
      const targets = graph.get(from) ?? new Set<string>();
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code, dependency.type]) {
          if (target !== undefined) targets.add(name(target.specifier));
        }
        const loaded = dependency.code && name(dependency.code.specifier);
        if (dependency.isDynamic && loaded?.startsWith("src/")) {
          dynamic.set(from, (dynamic.get(from) ?? new Set()).add(loaded));
        }
      }
      graph.set(from, targets);
    }
  }
  return { graph, dynamic };
}

/** A repository-relative path for local files; the specifier otherwise. */
function name(specifier: string): string {
  return specifier.startsWith("file://")
    ? relative(ROOT, fromFileUrl(specifier)).replaceAll("\\", "/")
    : specifier;
}

/** The first cycle found from each node, as a path that ends where it starts. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (state.get(next) === "open") {
        found.push([...stack.slice(stack.indexOf(next)), next]);
      } else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...edges.keys()].sort()) {
    if (state.get(node) === undefined) visit(node);
  }
  return found;
}

/** How code is loaded (`src/platform/lazy_import.ts`) is no dependency the import limits count. */
function isDependency(target: string): boolean {
  return target !== "src/platform/lazy_import.ts";
}

function folderOf(file: string): string {
  return file.split("/").slice(0, 2).join("/");
}

/**
 * Lists every violation of the rules in the module doc.
 *
 * @param graph The import graph of `src/`.
 * @returns One line per violation.
 */
export function violations(
  graph: ImportGraph,
  dynamic: DynamicImports = new Map(),
): string[] {
  const problems: string[] = [];
  for (const [file, targets] of dynamic) {
    for (const target of targets) {
      problems.push(
        `${file} imports ${target} by a literal dynamic import: use importLazily (src/platform/lazy_import.ts)`,
      );
    }
  }
  const files = new Map(
    [...graph].map(([file, targets]) => [
      file,
      new Set([...targets].filter((target) => target.startsWith("src/"))),
    ]),
  );
  for (const cycle of cycles(files)) {
    problems.push(`file cycle: ${cycle.join(" -> ")}`);
  }
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const set = folders.get(from) ?? new Set<string>();
    for (const target of targets) {
      if (folderOf(target) !== from) set.add(folderOf(target));
    }
    folders.set(from, set);
  }
  for (const cycle of cycles(folders)) {
    problems.push(`folder cycle: ${cycle.join(" -> ")}`);
  }
  for (
    const [from, targets] of [...folders].sort(([a], [b]) => a < b ? -1 : 1)
  ) {
    const floor = floorOf(from);
    if (floor === undefined) {
      problems.push(
        `${from} is on no floor of LAYERS (add it, and to ARCHITECTURE.md)`,
      );
      continue;
    }
    for (const target of [...targets].sort()) {
      const below = floorOf(target);
      if (below !== undefined && below <= floor) {
        problems.push(
          `layer: ${from} imports ${target}, which is not below it`,
        );
      }
    }
  }
  for (const [file, targets] of files) {
    const counted = [...targets].filter(isDependency).length;
    if (file.startsWith("src/app/") && counted > MAX_APP_IMPORTS) {
      problems.push(
        `${file} imports ${counted} modules (at most ${MAX_APP_IMPORTS})`,
      );
    }
  }
  for (const [file, targets] of graph) {
    if (!file.startsWith("src/cli/")) continue;
    const outside = [...targets].filter((target) =>
      !target.startsWith("src/cli/") && target !== "deno.json" &&
      isDependency(target)
    );
    if (outside.length > MAX_CLI_IMPORTS) {
      problems.push(
        `${file} imports ${outside.length} modules outside src/cli/ (at most ${MAX_CLI_IMPORTS}): ${
          outside.join(", ")
        }`,
      );
    }
  }
  return problems;
}

if (import.meta.main) {
  const { graph, dynamic } = await importGraph();
  const problems = violations(graph, dynamic);
  for (const problem of problems) console.error(`error: ${problem}`);
  console.log(
    `imports: ${graph.size} modules of src/ checked, ${problems.length} problem(s)`,
  );
  Deno.exitCode = problems.length === 0 ? 0 : 1;
}
