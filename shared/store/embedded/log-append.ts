/**
 * The store's log lines written: encoded one after another into one buffer kept for the next
 * write, then written from it. A turn's lines used to be joined into one string and that string
 * copied into a fresh Buffer every turn (memory outside V8's heap, which the GC tracks and frees)
 * for bytes that live only until the write returns. A line built of pieces is still flattened
 * once, now by its encoding (docs/performance-rounds.md, thirty-sixth round).
 */
import fs from "node:fs";

/** The buffer kept between writes: grown to what a write needs, up to this size. */
const KEPT_BYTES = 1024 * 1024;
/** The first buffer's size: a busy turn's lines (32 jobs' transitions) fit with room to spare. */
const FIRST_BYTES = 64 * 1024;

let kept: Buffer | undefined;

/**
 * The buffer for a write of at most `bytes`: the kept one, grown (to a power of two) while that
 * stays within KEPT_BYTES; a larger write gets a buffer of its own, dropped after it.
 */
function bufferFor(bytes: number): Buffer {
  if (kept && kept.length >= bytes) return kept;
  let size = kept?.length ?? FIRST_BYTES;
  while (size < bytes) size *= 2;
  const buffer = Buffer.allocUnsafeSlow(size);
  if (size <= KEPT_BYTES) kept = buffer;
  return buffer;
}

/**
 * Writes `lines` (each with its newline) to `fd` in order, as UTF-8, all of them: the one buffer
 * they were encoded into, written until every byte is. `chars` is their total length in UTF-16
 * code units (a code unit takes at most 3 bytes of UTF-8, so 3 x chars bounds the bytes). Answers
 * the bytes written. Throws what writeSync throws, with some of the bytes maybe written: the
 * caller cuts the log back to its last whole line.
 */
export function appendLines(fd: number, lines: readonly string[], chars: number): number {
  const buffer = bufferFor(chars * 3);
  let bytes = 0;
  for (const line of lines) bytes += buffer.write(line, bytes);
  let written = 0;
  while (written < bytes) written += fs.writeSync(fd, buffer, written, bytes - written);
  return bytes;
}
