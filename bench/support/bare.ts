/** Baseline "bare": node:http answering fixed bytes, the ceiling any framework on Node works under. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export async function startBare(
  body: Buffer,
  contentType: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": contentType, "Content-Length": body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
