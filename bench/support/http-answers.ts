import net from "node:net";

/**
 * Calls `answered` once per complete HTTP/1.1 answer on a keep-alive `socket` (its head and a body
 * of Content-Length bytes), in order; throws on any answer but a 200 with a Content-Length (the
 * benches' reads must not be measured failing). The benches' own client (./observability-inprocess.ts,
 * ./observability-processes.ts, ./observability-callgrind.ts): lighter than any HTTP client library, so its cost stays out of the
 * figures.
 */
export function onAnswers(socket: net.Socket, answered: () => void): void {
  let buffered = "";
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    for (;;) {
      const head = buffered.indexOf("\r\n\r\n");
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, head))?.[1] ?? NaN);
      if (!buffered.startsWith("HTTP/1.1 200") || Number.isNaN(length))
        throw new Error(`unexpected answer: ${buffered.slice(0, 200)}`);
      if (buffered.length < head + 4 + length) return;
      buffered = buffered.slice(head + 4 + length);
      answered();
    }
  });
}

/**
 * One keep-alive connection asking for `request` again as soon as each answer is complete, while
 * `asking()`; once it is not, `idle` gets the socket. Write `request` once to start it. Answers the
 * socket once connected.
 */
export function keepAsking(
  port: number,
  request: Buffer,
  answered: () => void,
  asking: () => boolean,
  idle?: (socket: net.Socket) => void,
): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  onAnswers(socket, () => {
    answered();
    if (asking()) socket.write(request);
    else idle?.(socket);
  });
  return new Promise((resolve) => socket.once("connect", () => resolve(socket)));
}
