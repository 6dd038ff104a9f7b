/**
 * The proxy benches' set-up (../proxy.bench.ts, ./proxy-alloc.ts): an admin's token and the NSO
 * adapter `bench` pointed at the stand-in orchestrator, its limits sized for the load (the benches
 * measure the proxy's cost, not its queue).
 */
import { ADMIN_PASSWORD } from "./platform";

/** The device list both benches ask for, through the proxy and through the floor. */
export const QUERY_PATH = "/restconf/data/tailf-ncs:devices";

/** POSTs `body` as JSON; answers the body's text, or throws on any status but 200. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** Signs in as the admin at `base`, creates the adapter `bench` to the stand-in; answers the auth header. */
export async function benchAdapter(base: string, upstreamPort: number): Promise<Record<string, string>> {
  const token = await postJson(`${base}/login`, { user: { username: "admin", password: ADMIN_PASSWORD } });
  const auth = { authorization: `Bearer ${token}` };
  const properties = { host: "127.0.0.1", port: upstreamPort, maxInFlight: 64, maxQueue: 1000 };
  await postJson(
    `${base}/adapters`,
    {
      properties: {
        name: "bench",
        type: "Application",
        properties: { id: "bench", type: "NSO", properties },
      },
    },
    auth,
  );
  return auth;
}
