/**
 * Hand background work to a detached jpt worker process, so `jpt query`
 * exits right after the reply. Only the CLI hands work off: the library
 * never starts a process. The worker is started through the same entry
 * point as this process (the sources, the bundled file, a compiled binary,
 * or `deno run jsr:…`), in a session of its own, with no standard streams
 * (a pipeline ends when the query does). It gets the conversation and the
 * global options on its command line, never a key: it reads keys from the
 * environment it inherits.
 *
 * @module
 */

import { basename } from "../platform/path.ts";
import { JPT_PERMISSIONS } from "./jpt_permissions.ts";
import type { Session } from "../app/session.ts";
import type { WorkerJob } from "../app/turn/turn_types.ts";

/**
 * The command line that runs jpt again, as this process was run, with the
 * permissions jpt runs with (not `-A`, whatever this process was given).
 *
 * @param exe The runtime (`Deno.execPath()`).
 * @param mainModule The main module (`Deno.mainModule`).
 * @returns The program and its leading arguments.
 */
export function jptCommand(
  exe: string = Deno.execPath(),
  mainModule: string = Deno.mainModule,
): string[] {
  // A compiled binary is jpt itself; anything else runs the main module.
  return /^deno(\.exe)?$/i.test(basename(exe))
    ? [exe, "run", "--quiet", ...JPT_PERMISSIONS, mainModule]
    : [exe];
}

/**
 * The variable that carries the query's `--cfg` values to its worker: a
 * value may hold a secret (a password in a base URL), and a command line is
 * visible to every user of the machine, an environment only to its owner.
 */
export const WORKER_CFG_ENV = "JPT_WORKER_CFG";

/**
 * The worker's arguments for a job (no secret: keys stay in the environment,
 * and so do the `--cfg` values, in {@linkcode WORKER_CFG_ENV}).
 *
 * @param session The query's session (its `--model` carries over).
 * @param job The job.
 * @returns The arguments after the program.
 */
export function workerArgs(session: Session, job: WorkerJob): string[] {
  return [
    "--workspace",
    job.workspace,
    ...(session.model === undefined ? [] : ["--model", session.model]),
    "worker",
    "--id",
    job.conversation,
    "--max-turns",
    String(job.maxTurns),
    "--before",
    String(job.turnsBefore),
    ...(job.title ? ["--title"] : []),
  ];
}

/**
 * Starts a detached worker and does not wait for it: the hand-off the CLI
 * gives `runTurn` (a library caller gets none, so nothing is spawned).
 *
 * @param session The query's session.
 * @param job The job.
 * @returns The worker's process id.
 */
export function startWorker(session: Session, job: WorkerJob): number {
  const [program, ...leading] = jptCommand();
  const child = new Deno.Command(program!, {
    args: [...leading, ...workerArgs(session, job)],
    cwd: session.cwd,
    env: { [WORKER_CFG_ENV]: JSON.stringify(session.cfg) },
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  child.unref();
  return child.pid;
}
