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
 * The processes whose working directory or command line is inside `dir`.
 *
 * @param dir An absolute directory.
 * @returns Their process ids (never this process's).
 */
export function processesInside(dir: string): number[] {
  const found: number[] = [];
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    if (isInside(entry.name, dir)) found.push(Number(entry.name));
  }
  return found;
}

function isInside(pid: string, dir: string): boolean {
  try {
    const cwd = Deno.readLinkSync(`/proc/${pid}/cwd`);
    if (cwd === dir || cwd.startsWith(`${dir}/`)) return true;
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(dir);
  } catch {
    return false; // Gone, or not ours to read.
  }
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
  for (let tries = 0; tries < 200; tries++) {
    if (pids.every((pid) => !alive(pid))) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return pids.length;
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // A zombie (state Z) has ended; only its parent's wait remains.
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}
