/**
 * Lock files a repository tracks: jp and jpt keep `.jp/locks/` on the
 * machine (jpt never deletes a lock file), so a repository that commits
 * them gets a change on every run. Asked of git, when git is there and the
 * workspace is in a repository; otherwise nothing is reported.
 *
 * @module
 */

/**
 * The lock files under `.jp/locks/` that git tracks.
 *
 * @param root The workspace root.
 * @returns Their paths relative to the root (none without git or a repository).
 */
export async function trackedLockFiles(root: string): Promise<string[]> {
  try {
    const output = await new Deno.Command("git", {
      args: ["ls-files", "-z", "--", ".jp/locks"],
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!output.success) return [];
    return new TextDecoder().decode(output.stdout).split("\0").filter((path) =>
      path !== ""
    );
  } catch {
    return []; // no git
  }
}
