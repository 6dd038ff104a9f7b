/**
 * An event stream has two enders that can race: a recheck whose refresh of the caller was in flight
 * when the session's logout ended the stream (or the gateway closed), then answers 401. The stream
 * ends once, with one `end` frame, and nothing throws "write after end" (it once failed CI's
 * test/security/sessions.test.ts).
 */
import type { Caller } from "../../shared/contracts/resources";
import { EventStreams } from "../../gateway/event-stream";

const caller = { accountId: "a1", sessionId: "s1", roles: [], groups: [] } as unknown as Caller;
const unauthorized = Object.assign(new Error("session ended"), { code: 401 });

/** Streams whose recheck's refresh answers only when the test says; `refreshed` once one is asked. */
function streamsWithHeldRefresh() {
  let answer: (fail: boolean) => void = () => undefined;
  let asked: () => void = () => undefined;
  const refreshed = new Promise<void>((resolve) => (asked = resolve));
  const refresh = () =>
    new Promise<Caller>((resolve, reject) => {
      answer = (fail) => (fail ? reject(unauthorized) : resolve(caller));
      asked();
    });
  const streams = new EventStreams({ perSession: 4, total: 4, recheckMs: 20 }, refresh);
  return { streams, refreshed, answer: (fail: boolean) => answer(fail) };
}

function frames(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
    stream.on("end", () => resolve(text));
    stream.on("error", reject);
  });
}

const errorsOf = (stream: NodeJS.EventEmitter) => {
  const seen: Error[] = [];
  stream.on("error", (err: Error) => seen.push(err));
  return seen;
};

/** One stream open, its frames and errors collected, its recheck's refresh asked and held. */
async function streamWithRecheckInFlight() {
  const { streams, refreshed, answer } = streamsWithHeldRefresh();
  const stream = streams.open(caller);
  const errors = errorsOf(stream);
  const text = frames(stream);
  await refreshed;
  return { streams, errors, text, answer };
}

test("logout ends the stream while a recheck is in flight; the recheck's 401 then ends nothing", async () => {
  const { streams, errors, text, answer } = await streamWithRecheckInFlight();
  streams.endSessions(["s1"]);
  answer(true);
  await new Promise((r) => setTimeout(r, 30));
  streams.close();
  expect(errors).toEqual([]);
  expect((await text).match(/event: end/g)).toHaveLength(1);
  expect(await text).toContain('data: {"reason":"session ended"}');
  expect(streams.size).toBe(0);
});

test("the gateway closes while a recheck is in flight; the recheck's 401 then ends nothing", async () => {
  const { streams, errors, text, answer } = await streamWithRecheckInFlight();
  streams.close();
  answer(true);
  await new Promise((r) => setTimeout(r, 30));
  expect(errors).toEqual([]);
  expect(await text).not.toContain("event: end");
});

test("a recheck's 401 still ends a stream nobody else ended", async () => {
  const { streams, errors, text, answer } = await streamWithRecheckInFlight();
  answer(true);
  expect(await text).toContain('event: end\ndata: {"reason":"session ended"}');
  expect(errors).toEqual([]);
  expect(streams.size).toBe(0);
  streams.close();
});
