/**
 * Functions compiled with their module, for the chunked build
 * (`scripts/chunked_build.ts`). V8 compiles a function when it is first
 * called, and Deno makes a module's code cache when it compiles the module,
 * before the module runs: a function compiled on its first call is never in
 * the cache, and every process compiles again each function it calls. V8
 * compiles a function that stands in parentheses together with the code
 * around it (its guess that the function is called at once), so the cache
 * holds it and the next process reads it back.
 *
 * {@linkcode eagerFunctions} puts every function expression and arrow in
 * parentheses, and turns each function declaration into a `let` of the same
 * function, in parentheses, before the first statement of its scope (after
 * any directive): a declaration's value is set when its scope is entered, so
 * the scope sees the same function from its first statement. A declaration
 * stays as it is where a `let` could not stand (a parameter, a `var` or
 * another declaration has its name) or where the language gives it other
 * rules (`export function`, a `switch` case).
 * Methods cannot stand in parentheses and stay compiled on first call.
 *
 * @module
 */

import { parse } from "acorn";
import type {
  AnyNode,
  ArrowFunctionExpression,
  BlockStatement,
  FunctionDeclaration,
  FunctionExpression,
  ModuleDeclaration,
  Pattern,
  Program,
  Statement,
} from "acorn";
import { full, recursive } from "acorn-walk";

/**
 * Rewrites a module so that V8 compiles its functions with it (see the
 * module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eagerFunctions } from "./eager_functions.ts";
 * assert.equal(
 *   eagerFunctions("g();function g(){return [1].map(x=>x)}"),
 *   "let g=(function (){return [1].map((x=>x))});g();",
 * );
 * ```
 *
 * @param source One ES module of the build.
 * @returns The same module with its functions in parentheses.
 * @throws {SyntaxError} When the source, or the rewritten source, does not parse.
 */
export function eagerFunctions(source: string): string {
  const program = parseModule(source);
  const edits = new Map<number, Edit>();
  const at = (position: number) => {
    let edit = edits.get(position);
    if (edit === undefined) {
      edit = { opens: 0, closes: 0, declarations: [], skipTo: undefined };
      edits.set(position, edit);
    }
    return edit;
  };
  const methods = new Set<AnyNode>();
  const parameters = new Map<BlockStatement, readonly Pattern[]>();
  full(program, (node) => {
    if (node.type === "MethodDefinition") methods.add(node.value);
    if (node.type === "Property" && (node.method || node.kind !== "init")) {
      methods.add(node.value);
    }
    if (isFunction(node) && node.body.type === "BlockStatement") {
      parameters.set(node.body, node.params);
    }
  });
  full(program, (node) => {
    if (
      (node.type === "FunctionExpression" ||
        node.type === "ArrowFunctionExpression") && !methods.has(node)
    ) {
      at(node.start).opens++;
      at(node.end).closes++;
    }
    const scope = scopeOf(node, parameters);
    if (scope === undefined) return;
    for (const declaration of movableDeclarations(scope)) {
      at(scope.insertAt).declarations.push(declaration);
      at(declaration.start).skipTo = declaration.end;
    }
  });
  const stops = [...edits.keys()].sort((a, b) => a - b);
  const rewritten = render(source, edits, stops);
  parseModule(rewritten);
  return rewritten;
}

/** What changes at one position of the source, in this order. */
interface Edit {
  /** Wrapped functions that end here. */
  closes: number;
  /** Declarations that move here, as `let`s. */
  declarations: FunctionDeclaration[];
  /** Wrapped functions that start here. */
  opens: number;
  /** A declaration that moved away starts here; its end. */
  skipTo: number | undefined;
}

/** A body whose function declarations may become `let`s. */
interface Scope {
  statements: ReadonlyArray<Statement | ModuleDeclaration>;
  /** Where the `let`s go: before the first statement that runs. */
  insertAt: number;
  /** The parameters of the function whose body this is, if it is one. */
  parameters: readonly Pattern[];
}

function parseModule(source: string): Program {
  return parse(source, { ecmaVersion: "latest", sourceType: "module" });
}

function isFunction(
  node: AnyNode,
): node is FunctionDeclaration | FunctionExpression | ArrowFunctionExpression {
  return node.type === "FunctionDeclaration" ||
    node.type === "FunctionExpression" ||
    node.type === "ArrowFunctionExpression";
}

/** The scope a node's statements form, if it is a body that declares functions. */
function scopeOf(
  node: AnyNode,
  parameters: ReadonlyMap<BlockStatement, readonly Pattern[]>,
): Scope | undefined {
  if (node.type === "Program") {
    const first = node.body.find((statement) =>
      statement.type !== "ImportDeclaration"
    );
    return {
      statements: node.body,
      insertAt: first?.start ?? node.end,
      parameters: [],
    };
  }
  if (node.type === "BlockStatement" || node.type === "StaticBlock") {
    const owned = node.type === "BlockStatement"
      ? parameters.get(node)
      : undefined;
    return {
      statements: node.body,
      insertAt: firstRunning(node.body, node.end),
      parameters: owned ?? [],
    };
  }
  return undefined;
}

/**
 * Where a body's first statement that runs starts: after its directives
 * (`"use strict"`), which must stay first. A body that declares a function
 * has one.
 */
function firstRunning(body: readonly Statement[], end: number): number {
  const first = body.find((statement) =>
    statement.type !== "ExpressionStatement" || !statement.directive
  );
  return first?.start ?? end;
}

/** The function declarations of a scope that can become `let`s. */
function movableDeclarations(scope: Scope): FunctionDeclaration[] {
  const declarations = scope.statements.filter((
    statement,
  ): statement is FunctionDeclaration =>
    statement.type === "FunctionDeclaration"
  );
  if (declarations.length === 0) return [];
  const counts = new Map<string, number>();
  for (const { id } of declarations) {
    counts.set(id.name, (counts.get(id.name) ?? 0) + 1);
  }
  // Names a `let` would clash with, looked for only where there is a `let`
  // to place: most blocks declare no function.
  const taken = takenNames(scope.statements, scope.parameters);
  return declarations.filter(({ id }) =>
    counts.get(id.name) === 1 && !taken.has(id.name)
  );
}

/**
 * The names a scope binds other than by its function declarations: its
 * parameters, its `let`, `const`, `class` and `import` names, and every
 * `var` of its statements outside nested functions (a `var` in a block
 * belongs to the enclosing function, and clashes with a `let` in the block).
 */
function takenNames(
  statements: ReadonlyArray<Statement | ModuleDeclaration>,
  parameters: readonly Pattern[],
): Set<string> {
  const names = new Set<string>();
  for (const parameter of parameters) boundNames(parameter, names);
  for (const statement of statements) {
    if (statement.type === "ClassDeclaration") names.add(statement.id.name);
    if (statement.type === "ImportDeclaration") {
      for (const { local } of statement.specifiers) names.add(local.name);
    }
    if (statement.type === "VariableDeclaration") {
      for (const { id } of statement.declarations) boundNames(id, names);
    }
    if (statement.type === "FunctionDeclaration") continue;
    recursive(statement, undefined, {
      Function() {},
      StaticBlock() {},
      VariableDeclaration(node, state, visit) {
        if (node.kind === "var") {
          for (const { id } of node.declarations) boundNames(id, names);
        }
        for (const { init } of node.declarations) {
          if (init) visit(init, state);
        }
      },
    });
  }
  return names;
}

/** Adds the names a binding pattern binds. */
function boundNames(pattern: Pattern, names: Set<string>): void {
  switch (pattern.type) {
    case "Identifier":
      names.add(pattern.name);
      break;
    case "ObjectPattern":
      for (const property of pattern.properties) {
        boundNames(
          property.type === "RestElement" ? property.argument : property.value,
          names,
        );
      }
      break;
    case "ArrayPattern":
      for (const element of pattern.elements) {
        if (element) boundNames(element, names);
      }
      break;
    case "RestElement":
      boundNames(pattern.argument, names);
      break;
    case "AssignmentPattern":
      boundNames(pattern.left, names);
      break;
    case "MemberExpression":
      break;
  }
}

/** The source with every edit applied. */
function render(
  source: string,
  edits: ReadonlyMap<number, Edit>,
  stops: readonly number[],
): string {
  // `skipStart`: a moved declaration is rendered from its own first
  // position, where it is both inserted and removed.
  const span = (start: number, end: number, skipStart: boolean): string => {
    let out = "";
    let position = start;
    for (
      let index = firstAtOrAfter(stops, skipStart ? start + 1 : start);
      index < stops.length && stops[index]! < end;
      index++
    ) {
      const stop = stops[index]!;
      // Inside a declaration that moved away.
      if (stop < position) continue;
      const edit = edits.get(stop)!;
      out += source.slice(position, stop) + ")".repeat(edit.closes);
      for (const declaration of edit.declarations) {
        // Without its name: the function refers to itself through the
        // `let`, as a declaration does, and takes its name from it.
        const head = span(declaration.start, declaration.id.start, true);
        const rest = span(declaration.id.end, declaration.end, false);
        out += `let ${declaration.id.name}=(${head}${rest});`;
      }
      out += "(".repeat(edit.opens);
      position = edit.skipTo ?? stop;
    }
    return out + source.slice(position, end);
  };
  return span(0, source.length, false) +
    ")".repeat(edits.get(source.length)?.closes ?? 0);
}

/** The index of the first value at least `value` in an ascending list. */
function firstAtOrAfter(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
