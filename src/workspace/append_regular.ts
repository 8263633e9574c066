/**
 * Appending to files jpt keeps for itself (the usage ledger, the worker
 * log): only ever to a regular file or a new one. Anything else at the path
 * (a FIFO, a directory, a device, a link) is refused before it is opened:
 * opening a FIFO for writing blocks until a reader comes, which would hang
 * a worker forever. The opened file is checked again (`fstat`), so a path
 * swapped for something else in between is refused too.
 *
 * @module
 */

/** Something other than a regular file is where jpt appends. */
export class NotRegularFileError extends Error {
  /**
   * @param path The path.
   */
  constructor(path: string) {
    super(`not a regular file: ${path}`);
    this.name = "NotRegularFileError";
  }
}

/**
 * Appends text to a regular file, creating it when missing.
 *
 * @param path The file.
 * @param text The text.
 * @throws {NotRegularFileError} When something else is at the path.
 */
export function appendToRegularFile(path: string, text: string): void {
  try {
    if (!Deno.lstatSync(path).isFile) throw new NotRegularFileError(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  using file = Deno.openSync(path, { append: true, create: true });
  if (!file.statSync().isFile) throw new NotRegularFileError(path);
  const bytes = new TextEncoder().encode(text);
  for (let written = 0; written < bytes.length;) {
    written += file.writeSync(bytes.subarray(written));
  }
}
