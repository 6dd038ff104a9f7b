/**
 * bench:proxy's floor: the least a moleculer-web gateway can do to proxy one request. The floor's
 * gateway (./floor.ts) with `POST /floor/restQuery` -> `proxyfloor.restQuery`, an action that sends
 * the same undici GET our adapter sends (keep-alive pool of the adapter's size, the `accept` header)
 * to the same orchestrator stand-in, reads the body and answers it parsed, as our restQuery does.
 * No auth, no validation schema, no breaker, limiter, timeout or retry: what ours adds on top of it is
 * the proxy's own cost.
 */
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { Agent, request } from "undici";
import { floorBrokerOptions, floorGateway } from "./floor";

interface RestQueryParams {
  params: { path: string; accept: string };
}

function proxyFloorService(upstreamPort: number, connections: number): ServiceSchema {
  const dispatcher = new Agent({ connections, keepAliveTimeout: 10_000 });
  return {
    name: "proxyfloor",
    actions: {
      async restQuery(ctx: { params: RestQueryParams }) {
        const { path, accept } = ctx.params.params;
        const res = await request(`http://127.0.0.1:${upstreamPort}${path}`, {
          method: "GET",
          headers: { accept },
          dispatcher,
        });
        const text = await res.body.text();
        return /[/+]json\b/i.test(String(res.headers["content-type"])) ? JSON.parse(text) : text;
      },
    },
    stopped: () => dispatcher.close(),
  };
}

/** The floor on a broker of its own in this process; answers it (stop it after). */
export async function startProxyFloor(upstreamPort: number, connections: number): Promise<ServiceBroker> {
  const broker = new ServiceBroker(floorBrokerOptions({ nodeID: "proxy-floor" }));
  broker.createService(proxyFloorService(upstreamPort, connections));
  broker.createService(floorGateway({ "POST /floor/restQuery": "proxyfloor.restQuery" }));
  await broker.start();
  return broker;
}
