/**
 * Questions about paths that never throw: a path that cannot be read counts
 * as absent.
 *
 * @module
 */

/**
 * Tells whether a path is a regular file.
 *
 * @param path The path.
 * @returns `true` for a file.
 */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Tells whether a path is a directory.
 *
 * @param path The path.
 * @returns `true` for a directory.
 */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Tells whether anything exists at a path (a link counts, even a broken one).
 *
 * @param path The path.
 * @returns `true` when something is there.
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
