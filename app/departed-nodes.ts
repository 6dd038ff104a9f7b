/**
 * Knowing within milliseconds that a node is gone, from what NATS already tells a plain client
 * (docs/deployment.md#high-availability).
 *
 * A SIGKILLed process sends no DISCONNECT: Moleculer only learns it is gone when its heartbeats
 * stop (HEARTBEAT_TIMEOUT, 6 to 12 s), and until then calls balanced to it wait for the request
 * timeout. But the kernel closes the dead process's socket at once, and nats-server drops its
 * subscriptions at once. A message published with a reply subject to a subject nobody subscribes
 * to is answered by the server, at once, with a "503 no responders" status on that reply subject
 * (NATS 2.2+, a client connected with headers; the `nats` package is). So:
 *
 *  - every packet sent to one node (a request, an event, a ping...) carries a reply subject under
 *    this node's inbox naming that node (and, for a request, the request's id). The receiving node
 *    ignores reply subjects: when the node is alive, nothing comes back and nothing is added;
 *  - a 503 on that inbox means the node's subscription is gone, i.e. the node is: a request that
 *    went to it never ran, so it is failed with ServiceNotAvailableError naming that node (which
 *    shared/retry-left-node.ts sends to another replica, whatever the action), and the node is
 *    dropped from the registry as if it had said goodbye (its other pending calls are rejected,
 *    later calls go to the other replicas). A live node dropped by mistake is found again by its
 *    next heartbeat;
 *  - a call already delivered when its node died gets no answer and no 503: every PROBE_MS, a node
 *    that has held a call since the previous look is sent a ping with such a reply subject, so a
 *    dead one is found within two looks.
 *
 * No system account, no extra subscription on the other nodes, no traffic while calls are answered.
 */
import { Errors, type ServiceBroker } from "moleculer";

const PROBE_MS = 250;
const SAFE_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

interface PendingRequest {
  nodeID?: string;
  action?: { name: string };
  reject(err: Error): void;
}

interface TransitInternals {
  pendingRequests: Map<string, PendingRequest>;
  removePendingRequest(id: string): void;
  sendPing(nodeID: string): Promise<unknown>;
  discoverer: { remoteNodeDisconnected(nodeID: string, unexpected: boolean): void };
}

interface RegistryInternals {
  nodes: { get(nodeID: string): { available: boolean } | undefined };
}

/** A packet as Moleculer hands it to the transporter. */
export interface OutgoingPacket {
  type: string;
  target?: string | null;
  payload?: { id?: string };
}

export class DepartedNodes {
  private readonly indexOf = new Map<string, number>();
  private readonly nodeAt: string[] = [];
  private lastPending = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly broker: ServiceBroker,
    /** This node's inbox prefix (`_INBOX.<unique>`): replies under it come back to this node only. */
    readonly inbox: string,
  ) {}

  /** The subject a 503 for this packet comes back on; none for a packet to every node. */
  replyFor(packet: OutgoingPacket | undefined): string | undefined {
    const target = packet?.target;
    if (!target) return undefined;
    let index = this.indexOf.get(target);
    if (index === undefined) {
      index = this.nodeAt.push(target) - 1;
      this.indexOf.set(target, index);
    }
    const id = packet.type === "REQ" ? packet.payload?.id : undefined;
    return `${this.inbox}.${index}.${id && SAFE_TOKEN.test(id) ? id : "-"}`;
  }

  /** A message on the inbox: a "no responders" status names a node that is gone. */
  received(subject: string, statusCode: number | undefined): void {
    if (statusCode !== 503) return;
    const [index, id] = subject.slice(this.inbox.length + 1).split(".");
    const nodeID = this.nodeAt[Number(index)];
    if (nodeID !== undefined) this.gone(nodeID, id === "-" ? undefined : id);
  }

  /** Starts looking after calls that wait on a node (see the module comment). */
  start(): void {
    this.timer ??= setInterval(() => this.probe(), PROBE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private get transit(): TransitInternals | undefined {
    return (this.broker as unknown as { transit?: TransitInternals }).transit;
  }

  private gone(nodeID: string, requestId: string | undefined): void {
    const transit = this.transit;
    if (!transit) return;
    const request = requestId ? transit.pendingRequests.get(requestId) : undefined;
    if (request && request.nodeID === nodeID) {
      transit.removePendingRequest(requestId!);
      request.reject(new Errors.ServiceNotAvailableError({ action: request.action?.name ?? "", nodeID }));
    }
    const node = (this.broker.registry as unknown as RegistryInternals).nodes.get(nodeID);
    if (!node?.available) return;
    this.broker.logger.warn(`Node '${nodeID}' has left the bus (NATS: no responders): dropped`);
    transit.discoverer.remoteNodeDisconnected(nodeID, true);
  }

  /** Pings every node that has held a call since the previous look. */
  private probe(): void {
    const transit = this.transit;
    if (!transit) return;
    const pending = new Set<string>();
    const waitedOn = new Set<string>();
    for (const [id, request] of transit.pendingRequests) {
      pending.add(id);
      if (request.nodeID && this.lastPending.has(id)) waitedOn.add(request.nodeID);
    }
    this.lastPending = pending;
    for (const nodeID of waitedOn) void transit.sendPing(nodeID);
  }
}
