/**
 * The gateway keeps an idle keep-alive connection for HTTP_KEEP_ALIVE_TIMEOUT_MS (65 s), not Node's
 * 5 s, so a load balancer that reuses its connections for 60 s never sends on one the gateway is
 * closing (docs/deployment.md#load-balancers). Over raw sockets: what a balancer does.
 */
import net from "node:net";
import { startPlatform, type Platform } from "../support/platform";

/** One keep-alive connection: send a request, read its whole answer (heads only; bodies are small). */
class Connection {
  private readonly socket: net.Socket;
  private text = "";
  private waiting?: () => void;
  closedAt?: number;

  constructor(port: number) {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.setEncoding("utf8");
    this.socket.on("data", (chunk: string) => {
      this.text += chunk;
      this.waiting?.();
    });
    this.socket.on("close", () => {
      this.closedAt = Date.now();
      this.waiting?.();
    });
  }

  /** Sends GET /health and resolves with the answer's head, or null if the server closed instead. */
  async get(): Promise<string | null> {
    this.text = "";
    this.socket.write("GET /health HTTP/1.1\r\nHost: gateway\r\n\r\n");
    for (;;) {
      const end = this.text.indexOf("\r\n\r\n");
      if (end !== -1) {
        const head = this.text.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (this.text.length >= end + 4 + length) return head;
      }
      if (this.closedAt !== undefined) return null;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("by default", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.stop());

  test("a connection idle for longer than Node's 5 s still answers, and answers say 65 s", async () => {
    const connection = new Connection(Number(new URL(platform.baseUrl).port));
    try {
      const first = await connection.get();
      expect(first).toMatch(/^HTTP\/1\.1 200/);
      expect(first).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i);
      await sleep(6000);
      expect(connection.closedAt).toBeUndefined();
      expect(await connection.get()).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      connection.close();
    }
  }, 20_000);
});

describe("HTTP_KEEP_ALIVE_TIMEOUT_MS", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ env: { HTTP_KEEP_ALIVE_TIMEOUT_MS: "1000" } });
  });
  afterAll(() => platform.stop());

  test("the gateway closes an idle connection once it has been idle that long, not before", async () => {
    const connection = new Connection(Number(new URL(platform.baseUrl).port));
    try {
      expect(await connection.get()).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
      const answeredAt = Date.now();
      await sleep(500);
      expect(connection.closedAt).toBeUndefined();
      expect(await connection.get()).toMatch(/^HTTP\/1\.1 200/);
      const idleFrom = Date.now();
      for (let i = 0; i < 100 && connection.closedAt === undefined; i++) await sleep(50);
      expect(connection.closedAt).toBeDefined();
      // Node closes it at the timeout plus its own margin (keepAliveTimeoutBuffer, 1 s at most).
      expect(connection.closedAt! - idleFrom).toBeGreaterThanOrEqual(900);
      expect(connection.closedAt! - answeredAt).toBeLessThan(4500);
    } finally {
      connection.close();
    }
  }, 20_000);

  test("a value below 1000 is refused at start", async () => {
    await expect(startPlatform({ env: { HTTP_KEEP_ALIVE_TIMEOUT_MS: "500" } })).rejects.toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer >= 1000/,
    );
  });
});
