/**
 * Every error the frameworks can raise maps to a documented status and type (docs/security.md):
 * nothing unexpected becomes a 500. Client-side failures are 4xx, an absent or departed service
 * 503, a call out of time 504; only failures inside the platform itself are 500.
 */
import { Errors } from "moleculer";
import ApiGateway from "moleculer-web";
import { toErrorBody } from "../../gateway/error-response";
import { client, expectError, startPlatform, type Platform } from "../support/platform";

const W = (ApiGateway as unknown as { Errors: Record<string, any> }).Errors;

const cases: [string, unknown, number, string][] = [
  ["moleculer-web InvalidRequestBodyError", new W.InvalidRequestBodyError("x"), 400, "INVALID_REQUEST_BODY"],
  [
    "moleculer-web BadRequestError (undecodable param)",
    new W.BadRequestError(W.ERR_UNABLE_DECODE_PARAM, { param: "%zz" }),
    400,
    "VALIDATION_ERROR",
  ],
  ["moleculer-web BadRequestError (other)", new W.BadRequestError("SOMETHING"), 400, "VALIDATION_ERROR"],
  [
    "moleculer-web UnAuthorizedError (no token)",
    new W.UnAuthorizedError(W.ERR_NO_TOKEN),
    401,
    "UNAUTHORIZED",
  ],
  [
    "moleculer-web UnAuthorizedError (bad token)",
    new W.UnAuthorizedError(W.ERR_INVALID_TOKEN),
    401,
    "UNAUTHORIZED",
  ],
  ["moleculer-web ForbiddenError (origin)", new W.ForbiddenError(W.ERR_ORIGIN_NOT_ALLOWED), 403, "FORBIDDEN"],
  ["moleculer-web NotFoundError", new W.NotFoundError(), 404, "NOT_FOUND"],
  ["moleculer-web PayloadTooLarge", new W.PayloadTooLarge(), 413, "PAYLOAD_TOO_LARGE"],
  ["moleculer-web RateLimitExceeded", new W.RateLimitExceeded(), 429, "RATE_LIMITED"],
  ["moleculer-web ServiceUnavailableError", new W.ServiceUnavailableError(), 503, "SERVICE_UNAVAILABLE"],
  [
    "Moleculer ValidationError",
    new Errors.ValidationError("bad", "VALIDATION_ERROR", []),
    400,
    "VALIDATION_ERROR",
  ],
  [
    "Moleculer ServiceNotFoundError",
    new Errors.ServiceNotFoundError({ action: "a.b" }),
    503,
    "SERVICE_UNAVAILABLE",
  ],
  [
    "Moleculer ServiceNotAvailableError",
    new Errors.ServiceNotAvailableError({ action: "a.b" }),
    503,
    "SERVICE_UNAVAILABLE",
  ],
  [
    "Moleculer RequestRejectedError",
    new Errors.RequestRejectedError({ action: "a.b", nodeID: "n" }),
    503,
    "SERVICE_UNAVAILABLE",
  ],
  [
    "Moleculer BrokerDisconnectedError",
    new Errors.BrokerDisconnectedError("disconnected"),
    503,
    "SERVICE_UNAVAILABLE",
  ],
  [
    "Moleculer RequestTimeoutError",
    new Errors.RequestTimeoutError({ action: "a.b", nodeID: "n" }),
    504,
    "TIMEOUT",
  ],
  [
    "Moleculer RequestSkippedError",
    new Errors.RequestSkippedError({ action: "a.b", nodeID: "n" }),
    504,
    "TIMEOUT",
  ],
  [
    "Moleculer QueueIsFullError",
    new Errors.QueueIsFullError({ action: "a.b", nodeID: "n" }),
    429,
    "RATE_LIMITED",
  ],
  [
    "body-parser entity.too.large",
    Object.assign(new Error("x"), { type: "entity.too.large", limit: 10 }),
    413,
    "PAYLOAD_TOO_LARGE",
  ],
  [
    "body-parser entity.parse.failed",
    Object.assign(new Error("x"), { type: "entity.parse.failed" }),
    400,
    "INVALID_REQUEST_BODY",
  ],
  [
    "body-parser request.aborted",
    Object.assign(new Error("x"), { type: "request.aborted" }),
    400,
    "INVALID_REQUEST_BODY",
  ],
];

test.each(cases)("%s -> %i %s", (_name, err, status, type) => {
  const body = toErrorBody(err, "req-1");
  expect({ code: body.code, type: body.type }).toEqual({ code: status, type });
  expect(JSON.stringify(body)).not.toContain("%zz");
});

test("failures inside the platform stay 500, with the request id and no detail", () => {
  for (const err of [
    new Errors.MaxCallLevelError({ nodeID: "n", level: 100 }),
    new Errors.GracefulStopTimeoutError({}),
    new Errors.MoleculerServerError("boom"),
    new TypeError("cannot read x of undefined"),
  ]) {
    const body = toErrorBody(err, "req-2");
    expect(body).toEqual({
      name: "InternalServerError",
      message: "Internal server error",
      code: 500,
      type: "INTERNAL_ERROR",
      data: { requestId: "req-2" },
    });
  }
});

describe("over HTTP", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.stop());

  test("malformed percent-encoding in a path parameter is a 400, even without credentials", async () => {
    const api = client(platform.baseUrl);
    for (const url of ["/adapters/%zz", "/formbuilder/forms/%E0%A4%A", "/adapters/a%"])
      expectError(await api.get(url), 400, "VALIDATION_ERROR");
  });
});

describe("requests Node's parser refuses", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.stop());

  test("a URL over 16 KB is 431 with the error body, not an empty one", async () => {
    const reply = await client(platform.baseUrl).get(`/adapters?x=${"a".repeat(20_000)}`);
    expectError(reply, 431, "HEADERS_TOO_LARGE");
  });
});
