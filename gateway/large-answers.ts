/**
 * Large answers are written in slices (docs/security.md#stalls). One `res.end` of a node read at the
 * spec's bounds (3.6 MB of JSON) holds the event loop for the whole write into the socket: over
 * loopback the kernel delivers the bytes inside the writer's own call, 15-30 ms for such an answer.
 * So an answer longer than LARGE_ANSWER_CHARS is turned into bytes in a turn of its own, then
 * written ANSWER_SLICE_BYTES at a time, each slice after the one before was taken, and other
 * requests get their turns in between. Smaller answers (nearly all) go out in one write as before,
 * with nothing added to their path.
 */
import type { ServerResponse } from "node:http";

/** Answers longer than this (UTF-16 units of their JSON text) are written in slices. */
export const LARGE_ANSWER_CHARS = 256 * 1024;
/** The bytes one slice writes. */
export const ANSWER_SLICE_BYTES = 64 * 1024;

type End = (this: ServerResponse, ...args: unknown[]) => ServerResponse;

/**
 * Makes the coming `res.end(text)` (moleculer-web's, right after encoding) write `text` in slices
 * when it is large. An `end` with anything else (nothing for HEAD, "" for 304) is the usual one.
 */
export function endInSlices(res: ServerResponse, text: string): void {
  if (text.length <= LARGE_ANSWER_CHARS) return;
  const end = res.end as End;
  const slicedEnd: End = function (this: ServerResponse, ...args: unknown[]) {
    // The response's own end again (the prototype's), whatever this call does.
    delete (res as { end?: unknown }).end;
    if (args[0] !== text) return end.apply(this, args);
    // Its bytes in a later turn than its JSON: making 3.6 MB of UTF-8 (the text flattened, fresh
    // pages touched) costs about as much as the JSON did.
    setImmediate(() => writeSlices(res, Buffer.from(text), end));
    return res;
  };
  res.end = slicedEnd as ServerResponse["end"];
}

function writeSlices(res: ServerResponse, body: Buffer, end: End): void {
  if (res.destroyed) return;
  // Declared, so the client reads a plain body of known length rather than chunked encoding.
  if (!res.headersSent && !res.hasHeader("content-length")) res.setHeader("Content-Length", body.length);
  let at = 0;
  const next = (): void => {
    // A client that went away: its socket's close ends the response (and its drain and metrics).
    if (res.destroyed) return;
    if (body.length - at <= ANSWER_SLICE_BYTES) {
      end.call(res, body.subarray(at));
      return;
    }
    const slice = body.subarray(at, at + ANSWER_SLICE_BYTES);
    at += ANSWER_SLICE_BYTES;
    res.write(slice, (err) => {
      if (!err) setImmediate(next);
    });
  };
  next();
}
