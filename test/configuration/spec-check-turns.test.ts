/**
 * A heavy spec check's copy to its worker runs in a turn of its own (services/configuration/
 * spec-check.ts checkedSpecs): the body's parse and bounds walk ran in the turn that called it, and
 * a structured clone of an import's spec lines takes tens of ms more (docs/security.md#stalls).
 * So requests that arrived meanwhile are served before it: the loop polls for I/O in between.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { checkedSpecs, HEAVY_REGEX_PARTS } from "../../services/configuration/spec-check";

/** A spec text with more regex parts than a check takes inline. */
const HEAVY_CONFIG = Array.from({ length: HEAVY_REGEX_PARTS + 1 }, (_, i) => `interface {/Gi${i}/}`).join(
  "\n",
);

test("a heavy spec check is sent to its worker after the loop has polled for the requests waiting", async () => {
  let waitingServed = false;
  let servedBeforeDispatch: boolean | undefined;
  const service = {
    evaluationPool: {
      run: async () => {
        servedBeforeDispatch = waitingServed;
        return { overBudget: false, result: { checked: [{ specJson: "[]", config: "" }] } };
      },
    },
  };
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => {
    accepted.push(socket);
    socket.on("data", (data) => {
      if (data.toString() === "second") waitingServed = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const first = net.connect(port, "127.0.0.1");
  const second = net.connect(port, "127.0.0.1");
  while (accepted.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  try {
    const checked = await new Promise((resolve, reject) => {
      // In an I/O callback, as a request's handler runs: another request arrives meanwhile (a
      // loopback write is in the server's socket at once), then the check starts.
      first.once("data", () => {
        second.write("second");
        checkedSpecs
          .call(service as never, [{ field: "config", config: HEAVY_CONFIG }])
          .then(resolve, reject);
      });
      for (const socket of accepted) socket.write("go");
    });
    expect(checked).toEqual([{ specJson: "[]", config: "" }]);
    expect(servedBeforeDispatch).toBe(true);
  } finally {
    first.destroy();
    second.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
