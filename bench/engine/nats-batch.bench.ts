/**
 * What a call over NATS costs with the packets of a turn to one node as one message
 * (app/nats-batch.ts) and with each packet alone, in one process, rounds alternated: two brokers
 * (caller and callee, the platform's transporter) on a nats-server of their own, CONCURRENCY
 * callers in a closed loop calling a no-op action on the other broker. Prints, per round, the
 * process's CPU µs per call (both sides: serialize, publish, parse, Moleculer's handling) and the
 * nats-server's (from /proc, 10 ms ticks).
 *
 *   node dist/bench/engine/nats-batch.bench.js      Env: ROUNDS (8), CALLS (20000), CONCURRENCY (32)
 *
 * Each packet alone is what a node gets from one that does not say it takes batches: the flag is
 * taken out of each broker's view of the other.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { ServiceBroker } from "moleculer";
import { BATCH_FLAG, BATCH_VERSION } from "../../app/nats-batch";
import { CoalescingNatsTransporter } from "../../app/nats-transporter";

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const CALLS = Number(process.env.CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const TICK_US = 10_000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** user + system CPU of a process, in µs (10 ms resolution). */
function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

function setBatches(from: ServiceBroker, to: string, on: boolean): void {
  const node = from.registry.nodes.get(to)!;
  node.metadata = { ...node.metadata, [BATCH_FLAG]: on ? BATCH_VERSION : 0 };
}

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 500));
  const url = `nats://127.0.0.1:${port}`;
  const make = (nodeID: string) =>
    new ServiceBroker({
      nodeID,
      namespace: "nats-batch-bench",
      transporter: new CoalescingNatsTransporter({ url }),
      logger: false,
    });
  const caller = make("caller");
  const callee = make("callee");
  callee.createService({ name: "noop", actions: { run: () => ({ ok: true }) } });
  try {
    await Promise.all([caller.start(), callee.start()]);
    await caller.waitForServices(["noop"], 10_000);
    const run = async (calls: number) => {
      let next = 0;
      const loop = async () => {
        while (next++ < calls) await caller.call("noop.run", { step: next, job: "j-0123456789" });
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, loop));
    };
    await run(CALLS / 4); // warm-up, batched
    const rows: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const batched of round % 2 === 0 ? [true, false] : [false, true]) {
        setBatches(caller, "callee", batched);
        setBatches(callee, "caller", batched);
        await run(CALLS / 10); // settle into the mode
        const cpu0 = process.cpuUsage();
        const server0 = cpuOf(server.pid!);
        const t0 = process.hrtime.bigint();
        await run(CALLS);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const cpu = process.cpuUsage(cpu0);
        const serverUs = cpuOf(server.pid!) - server0;
        rows.push(
          `round ${round} ${batched ? "batched" : "alone  "}: process ${((cpu.user + cpu.system) / CALLS).toFixed(1)} µs/call ` +
            `(system ${(cpu.system / CALLS).toFixed(1)}), nats-server ${(serverUs / CALLS).toFixed(1)}, ` +
            `${Math.round((CALLS / ms) * 1000)} calls/s`,
        );
        console.log(rows[rows.length - 1]);
      }
    }
  } finally {
    await caller.stop();
    await callee.stop();
    server.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
