import assert from "node:assert/strict";
import {
  causeChain,
  ExitCode,
  JptError,
  UsageError,
} from "../../src/errors/jpt_error.ts";
import { LockHeldError } from "../../src/workspace/lock.ts";
import { CfgSyntaxError } from "../../src/config/cfg_arg.ts";
import { PlanError } from "../../src/edit/plan_error.ts";

Deno.test("JptError carries its exit code (default 1), name and cause", () => {
  const cause = new Error("inner");
  const error = new JptError("outer", { cause });
  assert.equal(error.exitCode, ExitCode.failure);
  assert.equal(error.cause, cause);
  assert.equal(error.name, "JptError");
  assert.equal(new UsageError("bad").exitCode, ExitCode.usage);
  assert.equal(new UsageError("bad").name, "UsageError");
});

Deno.test("user-facing errors of every layer extend JptError with the right exit code", () => {
  assert.ok(new LockHeldError("/x.lock", undefined) instanceof JptError);
  assert.equal(new LockHeldError("/x.lock", undefined).exitCode, 1);
  assert.equal(new CfgSyntaxError("a", "b").exitCode, ExitCode.usage);
  assert.equal(new PlanError("Plan line 1: bad").exitCode, ExitCode.failure);
});

Deno.test("causeChain() lists every cause, outermost first, and stops at a cycle", () => {
  const inner = new Error("c");
  const middle = new Error("b", { cause: inner });
  assert.deepEqual(causeChain(new Error("a", { cause: middle })), [
    "a",
    "b",
    "c",
  ]);
  const loop = new Error("x");
  (loop as { cause?: unknown }).cause = loop;
  assert.deepEqual(causeChain(loop), ["x"]);
  assert.deepEqual(causeChain("text"), ["text"]);
});
