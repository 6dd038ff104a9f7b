/**
 * The platform's errors: one class per status of docs/platform-rules.md#errors. They are Moleculer errors,
 * so `code`, `type` and `data` survive the trip over NATS and reach the gateway intact.
 */
import { Errors } from "moleculer";

const { MoleculerClientError, MoleculerError } = Errors;

/**
 * Every `type` an error answer can carry, by HTTP status: the first is the status's own, the others
 * name a cause a client may act on. docs/platform-rules.md#errors lists the same (a test compares
 * both, and every type the code builds, with this). The gateway answers a type not listed here as
 * its status's first.
 */
export const ERROR_TYPES: Readonly<Record<number, readonly string[]>> = {
  400: ["VALIDATION_ERROR", "INVALID_REQUEST_BODY", "STORE_RULE"],
  401: ["UNAUTHORIZED"],
  403: ["FORBIDDEN"],
  404: ["NOT_FOUND"],
  409: ["CONFLICT"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  429: ["RATE_LIMITED"],
  431: ["HEADERS_TOO_LARGE"],
  500: ["INTERNAL_ERROR"],
  501: ["NOT_IMPLEMENTED"],
  502: ["BAD_GATEWAY"],
  503: ["SERVICE_UNAVAILABLE", "ADAPTER_BUSY", "ADAPTER_STOPPED", "CIRCUIT_OPEN"],
  504: ["TIMEOUT"],
};

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

/** Answered by operations whose handlers belong to a later issue (see docs/operations.md). */
export class NotImplementedError extends MoleculerError {
  constructor(action: string) {
    super(`'${action}' is not implemented yet`, 501, "NOT_IMPLEMENTED", { action });
    this.name = "NotImplementedError";
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
