/**
 * The platforms release binaries are built for, in one place: the pack script
 * builds them and the release workflow's matrix must list the same ones (a
 * test checks it).
 *
 * @module
 */

/** A `deno compile` target and how its archive is packed. */
export interface ReleaseTarget {
  /** The `deno compile --target` triple. */
  target: string;
  /** Archive format. */
  archive: "tar.gz" | "zip";
  /** Name of the executable inside the archive. */
  binary: string;
}

/** Every release target. */
export const TARGETS: readonly ReleaseTarget[] = [
  { target: "x86_64-unknown-linux-gnu", archive: "tar.gz", binary: "jpt" },
  { target: "aarch64-unknown-linux-gnu", archive: "tar.gz", binary: "jpt" },
  { target: "x86_64-apple-darwin", archive: "tar.gz", binary: "jpt" },
  { target: "aarch64-apple-darwin", archive: "tar.gz", binary: "jpt" },
  { target: "x86_64-pc-windows-msvc", archive: "zip", binary: "jpt.exe" },
];
