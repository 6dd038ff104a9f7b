/**
 * What crosses the bus during a bench run: NATS messages and bytes of the Moleculer namespaces
 * starting with a prefix, by packet type, target and action or event. Run it beside a bench and
 * stop it with Ctrl-C (or SIGTERM) when the bench is done; it prints one line per kind:
 *
 *   node dist/bench/support/bus-traffic.js MOL-engine-bench- &
 *   BENCH_ONLY=nats node dist/bench/engine.bench.js; kill -INT %1
 *
 * It subscribes to every subject of the server (`>`), so nats-server sends it a copy of each
 * message: CPU figures of a run it watched are not comparable with those of a run it did not.
 */
import { connect } from "nats";

interface Kind {
  messages: number;
  bytes: number;
}

const prefix = process.argv[2] || "MOL-";
const url = process.env.NATS_URL || "nats://127.0.0.1:4222";

/** `REQ -> <node> store.batch`, `EVENT -> <node> engine.jobChanges`, `RES -> <node>`, `HEARTBEAT`. */
function kindOf(subject: string, data: Uint8Array): string {
  const parts = subject.split(".");
  const type = parts[1] ?? "?";
  if (type !== "REQ" && type !== "RES" && type !== "EVENT") return [type, ...parts.slice(2)].join(" ").trim();
  let kind = `${type} -> ${parts[2] ?? ""}`;
  try {
    const packet = JSON.parse(Buffer.from(data).toString("utf8")) as { action?: string; event?: string };
    if (packet.action) kind += ` ${packet.action}`;
    if (packet.event) kind += ` ${packet.event}`;
  } catch {
    // Not JSON (another serializer): counted by subject only.
  }
  return kind;
}

async function main(): Promise<void> {
  const nc = await connect({ servers: url });
  const kinds = new Map<string, Kind>();
  const report = () => {
    const rows = [...kinds].sort((a, b) => b[1].messages - a[1].messages);
    let messages = 0;
    let bytes = 0;
    for (const [kind, k] of rows) {
      messages += k.messages;
      bytes += k.bytes;
      console.log(`${kind}\t${k.messages}\t${k.bytes}\t${Math.round(k.bytes / k.messages)}`);
    }
    console.log(`total\t${messages}\t${bytes}`);
    process.exit(0);
  };
  process.on("SIGINT", report);
  process.on("SIGTERM", report);
  for await (const m of nc.subscribe(">")) {
    if (!m.subject.startsWith(prefix)) continue;
    const kind = kindOf(m.subject, m.data);
    const k = kinds.get(kind) ?? { messages: 0, bytes: 0 };
    k.messages++;
    k.bytes += m.data.length;
    kinds.set(kind, k);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
