/**
 * The platform's errors: one class per status of docs/platform-rules.md#errors. They are Moleculer errors,
 * so `code`, `type` and `data` survive the trip over NATS and reach the gateway intact.
 */
import { Errors } from "moleculer";

const { MoleculerClientError, MoleculerError } = Errors;

/**
 * The error catalogue: every (status, `type`, `name`) an error answer can carry, one `name` per
 * `type`. docs/platform-rules.md#errors lists the same rows and what each one's `data` holds
 * (test/gateway/error-types.test.ts compares both, and every type the code builds, with this). The
 * gateway answers through this table only (gateway/error-response.ts): a type not listed for the
 * status becomes the status's first row, and the `name` is always the row's, so no class name of a
 * framework (`MoleculerError`, `MoleculerClientError`, `ValidationError`, moleculer-web's
 * `UnAuthorizedError`...) nor of the code's internals (`DuplicateKeyError`) reaches a client.
 */
export interface CatalogueEntry {
  status: number;
  type: string;
  name: string;
}

export const ERROR_CATALOGUE: readonly CatalogueEntry[] = [
  { status: 400, type: "VALIDATION_ERROR", name: "BadRequestError" },
  { status: 400, type: "INVALID_REQUEST_BODY", name: "InvalidRequestBodyError" },
  { status: 400, type: "STORE_RULE", name: "StoreRuleError" },
  { status: 401, type: "UNAUTHORIZED", name: "UnauthorizedError" },
  { status: 403, type: "FORBIDDEN", name: "ForbiddenError" },
  { status: 404, type: "NOT_FOUND", name: "NotFoundError" },
  { status: 409, type: "CONFLICT", name: "ConflictError" },
  { status: 413, type: "PAYLOAD_TOO_LARGE", name: "PayloadTooLargeError" },
  { status: 415, type: "UNSUPPORTED_MEDIA_TYPE", name: "UnsupportedMediaTypeError" },
  { status: 429, type: "RATE_LIMITED", name: "RateLimitedError" },
  { status: 431, type: "HEADERS_TOO_LARGE", name: "RequestHeaderFieldsTooLargeError" },
  { status: 500, type: "INTERNAL_ERROR", name: "InternalServerError" },
  { status: 500, type: "ANSWER_TOO_LARGE", name: "AnswerTooLargeError" },
  { status: 501, type: "NOT_IMPLEMENTED", name: "NotImplementedError" },
  { status: 502, type: "BAD_GATEWAY", name: "BadGatewayError" },
  { status: 503, type: "SERVICE_UNAVAILABLE", name: "ServiceUnavailableError" },
  { status: 503, type: "ADAPTER_BUSY", name: "AdapterBusyError" },
  { status: 503, type: "ADAPTER_STOPPED", name: "AdapterStoppedError" },
  { status: 503, type: "CIRCUIT_OPEN", name: "CircuitOpenError" },
  { status: 504, type: "TIMEOUT", name: "TimeoutError" },
];

/**
 * Every `type` an error answer can carry, by HTTP status (from the catalogue): the first is the
 * status's own, the others name a cause a client may act on.
 */
export const ERROR_TYPES: Readonly<Record<number, readonly string[]>> = ERROR_CATALOGUE.reduce<
  Record<number, string[]>
>((byStatus, { status, type }) => ({ ...byStatus, [status]: [...(byStatus[status] ?? []), type] }), {});

/** The catalogue's row for a status and type: the type's own, else the status's first, else 500's. */
export function catalogueEntry(status: number, type: unknown): CatalogueEntry {
  return (
    ERROR_CATALOGUE.find((e) => e.status === status && e.type === type) ??
    ERROR_CATALOGUE.find((e) => e.status === status) ??
    ERROR_CATALOGUE.find((e) => e.status === 500)!
  );
}

export interface FieldError {
  field: string;
  message: string;
  type: string;
}

export class BadRequestError extends MoleculerClientError {
  constructor(message: string, data?: FieldError[]) {
    super(message, 400, "VALIDATION_ERROR", data ?? []);
    this.name = "BadRequestError";
  }
}

/** A single invalid field, in the same shape as a schema validation failure. */
export function invalidField(field: string, message: string, type = "invalid"): BadRequestError {
  return new BadRequestError(message, [{ field, message, type }]);
}

export class UnauthorizedError extends MoleculerClientError {
  constructor(message = "Authentication required") {
    super(message, 401, "UNAUTHORIZED");
    this.name = "UnauthorizedError";
  }
}

/**
 * 403. `data.required` names the roles that would have been allowed (docs/security.md#authorization):
 * every refusal says what it needs.
 */
export class ForbiddenError extends MoleculerClientError {
  constructor(
    message = "None of your roles may call this operation",
    data: { required: readonly string[]; [key: string]: unknown } = { required: ["admin"] },
  ) {
    super(message, 403, "FORBIDDEN", data);
    this.name = "ForbiddenError";
  }
}

export class NotFoundError extends MoleculerClientError {
  constructor(what: string, id?: string) {
    super(
      id === undefined ? `${what} not found` : `${what} '${id}' not found`,
      404,
      "NOT_FOUND",
      id === undefined ? undefined : { [what.toLowerCase()]: id },
    );
    this.name = "NotFoundError";
  }
}

export class ConflictError extends MoleculerClientError {
  constructor(message: string, data?: unknown) {
    super(message, 409, "CONFLICT", data);
    this.name = "ConflictError";
  }
}

export class BadGatewayError extends MoleculerError {
  constructor(message: string, data: { status?: number; body?: unknown }) {
    super(message, 502, "BAD_GATEWAY", data);
    this.name = "BadGatewayError";
  }
}

/** An answer larger than the message bus carries (app/oversized-answers.ts): ask for less. */
export class AnswerTooLargeError extends MoleculerError {
  constructor(message: string, data: { bytes: number }) {
    super(message, 500, "ANSWER_TOO_LARGE", data);
    this.name = "AnswerTooLargeError";
  }
}

/** Answered by operations whose handlers belong to a later issue (see docs/operations.md). */
export class NotImplementedError extends MoleculerError {
  constructor(action: string) {
    super(`'${action}' is not implemented yet`, 501, "NOT_IMPLEMENTED", { action });
    this.name = "NotImplementedError";
  }
}

/**
 * A store operation that ran past its time limit, as MongoDB's `MaxTimeMSExpired` (code 50): 504
 * `TIMEOUT`, a cause of the server's, not the caller's input (the embedded store's aggregation
 * thread: shared/store/embedded/aggregate-input.ts).
 */
export class StoreTimeLimitError extends MoleculerError {
  constructor(message: string) {
    super(message, 504, "TIMEOUT", { storeCode: 50, codeName: "MaxTimeMSExpired" });
    this.name = "StoreTimeLimitError";
  }
}

/**
 * A write or query the store refuses by MongoDB's own rules (shared/store/rules.ts), on every
 * backend alike: 413 `PAYLOAD_TOO_LARGE` for a document past 16 MiB, 400 `STORE_RULE` for the
 * rest. `data` names MongoDB's error (`storeCode`, `codeName`), never a stored value.
 */
export class StoreRuleError extends MoleculerClientError {
  constructor(message: string, storeCode: number, codeName: string) {
    const data = { storeCode, codeName };
    if (codeName === "BSONObjectTooLarge") super(message, 413, "PAYLOAD_TOO_LARGE", data);
    else super(message, 400, "STORE_RULE", data);
    this.name = "StoreRuleError";
  }

  /** MongoDB's error code (10334, 14, 28, 40, ...). */
  get storeCode(): number {
    return (this.data as { storeCode: number }).storeCode;
  }

  get codeName(): string {
    return (this.data as { codeName: string }).codeName;
  }
}
