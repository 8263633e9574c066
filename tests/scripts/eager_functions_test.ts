import assert from "node:assert/strict";
import { eagerFunctions } from "../../scripts/eager_functions.ts";

/** Runs a module and returns its `result` export. */
async function resultOf(source: string): Promise<unknown> {
  const url = `data:text/javascript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(source)))
  }`;
  const module = await import(url);
  return module.result;
}

/** Asserts that a module gives the same result before and after the rewrite. */
async function assertSameResult(source: string): Promise<string> {
  const rewritten = eagerFunctions(source);
  assert.deepEqual(await resultOf(rewritten), await resultOf(source));
  return rewritten;
}

Deno.test("eagerFunctions puts function expressions and arrows in parentheses and leaves methods as they are", () => {
  assert.equal(
    eagerFunctions(
      "const o={m(){return 1},get g(){return 2},f:function(){return 3},a:x=>x};" +
        "class C{n(){return[1].map(y=>y)}static s(){}}export{o,C};",
    ),
    "const o={m(){return 1},get g(){return 2},f:(function(){return 3}),a:(x=>x)};" +
      "class C{n(){return[1].map((y=>y))}static s(){}}export{o,C};",
  );
});

Deno.test("eagerFunctions moves a declaration to the start of its scope as a let of the same function", async () => {
  const rewritten = await assertSameResult(
    'import"data:text/javascript,";const early=twice(2);' +
      "function twice(n){return n*2}" +
      "export const result=[early,twice.name,typeof twice];",
  );
  assert.equal(
    rewritten,
    'import"data:text/javascript,";let twice=(function (n){return n*2});' +
      "const early=twice(2);" +
      "export const result=[early,twice.name,typeof twice];",
  );
});

Deno.test("eagerFunctions keeps nested and block-scoped declarations where they can be seen", async () => {
  const rewritten = await assertSameResult(
    "function outer(){const a=inner();function inner(){return deep()+1;function deep(){return 1}}" +
      "let b;{b=f();function f(){return 'first'}}let c;{c=f();function f(){return 'second'}}" +
      "return [a,b,c,typeof f]}" +
      "class C{static{C.v=five();function five(){return 5}}}" +
      "export const result=[...outer(),C.v];",
  );
  assert.match(
    rewritten,
    /static\{let five=\(function \(\)\{return 5\}\);C\.v=five\(\);\}/,
  );
  assert.match(
    rewritten,
    /\{let f=\(function \(\)\{return 'first'\}\);b=f\(\);\}/,
  );
  assert.match(
    rewritten,
    /let deep=\(function \(\)\{return 1\}\);return deep\(\)\+1;/,
  );
});

Deno.test("eagerFunctions leaves a declaration whose name a parameter, a var or another declaration has", async () => {
  for (
    const source of [
      "function g(f){function f(){return 1}return typeof f}export const result=g(2);",
      "function g(){var f=1;function f(){}return typeof f}export const result=g();",
      "function g(){{var f=1}function f(){}return typeof f}export const result=g();",
      "function g(){function f(){return 1}function f(){return 2}return f()}export const result=g();",
      "function g({f}){function f(){return 1}return typeof f}export const result=g({f:2});",
    ]
  ) {
    const rewritten = await assertSameResult(source);
    assert.match(rewritten, /function f\(\)/, rewritten);
  }
});

Deno.test("eagerFunctions leaves exported and switch-case declarations, and keeps a body's directives first", async () => {
  const rewritten = await assertSameResult(
    "export function exported(){return 1}" +
      "function pick(n){'use strict';switch(n){case 1:function one(){return 'one'}return one()}return inner();function inner(){return 'inner'}}" +
      "export const result=[exported(),pick(1),pick(2)];",
  );
  assert.match(rewritten, /export function exported\(\)\{return 1\}/);
  assert.match(rewritten, /case 1:function one\(\)/);
  assert.match(rewritten, /'use strict';let inner=\(function \(\)/);
});

Deno.test("eagerFunctions keeps what a function sees: its own name, async and generator functions, this and arguments", async () => {
  await assertSameResult(
    "let count=0;function tick(){count++;return tick}" +
      "const named=function self(n){return n<1?0:self(n-1)+1};" +
      "async function later(){return 'later'}function* numbers(){yield 1;yield 2}" +
      "function args(){return arguments.length}" +
      "const bound={v:7,get(){return [1].map(function(){return this.v},this)[0]}};" +
      "export const result=[tick()()===tick,count,named(3),await later(),[...numbers()],args(1,2,3),bound.get()];",
  );
});

Deno.test("eagerFunctions rejects a source that does not parse", () => {
  assert.throws(() => eagerFunctions("function ("), SyntaxError);
});
