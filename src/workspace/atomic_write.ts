/**
 * Atomic file writes: a temporary file beside the target, flushed to disk,
 * then renamed over it. A target that already holds the same bytes is left
 * alone, so its modification time (which decides which storage root jp reads)
 * does not move.
 *
 * @module
 */

/**
 * Writes `bytes` to `path` atomically unless the file already holds them.
 *
 * @param path The target file.
 * @param bytes The new content.
 * @returns `true` when the file was written, `false` when it was unchanged.
 */
export async function writeFileAtomic(
  path: string,
  bytes: Uint8Array,
): Promise<boolean> {
  if (await hasBytes(path, bytes)) return false;
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  // jp's start-up validation removes stray `*.tmp` files in conversation directories.
  const temporary = `${path}.${suffix}.tmp`;
  try {
    const file = await Deno.open(temporary, {
      write: true,
      createNew: true,
      mode: 0o644,
    });
    try {
      let written = 0;
      while (written < bytes.length) {
        written += await file.write(bytes.subarray(written));
      }
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return true;
}

async function hasBytes(path: string, bytes: Uint8Array): Promise<boolean> {
  try {
    const stat = await Deno.stat(path);
    if (stat.size !== bytes.length) return false;
    const current = await Deno.readFile(path);
    return current.every((byte, i) => byte === bytes[i]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
