/**
 * Processes a test leaves behind: a detached summary worker started by a
 * `jpt query` under test outlives the command, and would write into (and
 * recreate) a temporary workspace after the test removed it. A test's
 * workspace ends them before it is removed (Linux, through `/proc`;
 * elsewhere nothing is found and nothing is done).
 *
 * @module
 */

/**
 * The processes whose working directory is inside `dir`. Read with one
 * `ls` of `/proc/<pid>/cwd`: Deno reads `/proc` only with `--allow-all`,
 * which the suite does not have.
 *
 * @param dir An absolute directory (its real path).
 * @returns Their process ids (never this process's).
 */
export function processesInside(dir: string): number[] {
  let listing: string;
  try {
    const output = new Deno.Command("sh", {
      args: ["-c", "ls -ld /proc/[0-9]*/cwd 2>/dev/null; true"],
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    listing = new TextDecoder().decode(output.stdout);
  } catch {
    return []; // No shell or no /proc: nothing to find.
  }
  const found: number[] = [];
  for (const line of listing.split("\n")) {
    const match = /\/proc\/(\d+)\/cwd -> (.*)$/.exec(line);
    if (match === null || Number(match[1]) === Deno.pid) continue;
    const cwd = match[2]!;
    if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(match[1]));
  }
  return found;
}

/**
 * Ends every process inside `dir` (SIGKILL: jpt's writes are atomic, and
 * the directory is about to be removed) and waits until they are gone.
 *
 * @param dir An absolute directory.
 * @returns How many were ended.
 */
export async function endProcessesInside(dir: string): Promise<number> {
  const pids = processesInside(dir);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  // A killed process lists no working directory once it has ended (a
  // zombie waits only for its parent).
  for (let tries = 0; tries < 200 && pids.length > 0; tries++) {
    const left = processesInside(dir);
    if (!pids.some((pid) => left.includes(pid))) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return pids.length;
}
