"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.NotImplementedError = exports.BadGatewayError = exports.ConflictError = exports.NotFoundError = exports.ForbiddenError = exports.UnauthorizedError = exports.BadRequestError = void 0;
exports.invalidField = invalidField;
/**
 * The platform's errors: one class per status of docs/platform-rules.md#errors. They are Moleculer errors,
 * so `code`, `type` and `data` survive the trip over NATS and reach the gateway intact.
 */
const moleculer_1 = require("moleculer");
const { MoleculerClientError, MoleculerError } = moleculer_1.Errors;
class BadRequestError extends MoleculerClientError {
    constructor(message, data) {
        super(message, 400, "VALIDATION_ERROR", data ?? []);
        this.name = "BadRequestError";
    }
}
exports.BadRequestError = BadRequestError;
/** A single invalid field, in the same shape as a schema validation failure. */
function invalidField(field, message, type = "invalid") {
    return new BadRequestError(message, [{ field, message, type }]);
}
class UnauthorizedError extends MoleculerClientError {
    constructor(message = "Authentication required") {
        super(message, 401, "UNAUTHORIZED");
        this.name = "UnauthorizedError";
    }
}
exports.UnauthorizedError = UnauthorizedError;
class ForbiddenError extends MoleculerClientError {
    constructor(message = "None of your roles may call this operation") {
        super(message, 403, "FORBIDDEN");
        this.name = "ForbiddenError";
    }
}
exports.ForbiddenError = ForbiddenError;
class NotFoundError extends MoleculerClientError {
    constructor(what, id) {
        super(id === undefined ? `${what} not found` : `${what} '${id}' not found`, 404, "NOT_FOUND", id === undefined ? undefined : { [what.toLowerCase()]: id });
        this.name = "NotFoundError";
    }
}
exports.NotFoundError = NotFoundError;
class ConflictError extends MoleculerClientError {
    constructor(message, data) {
        super(message, 409, "CONFLICT", data);
        this.name = "ConflictError";
    }
}
exports.ConflictError = ConflictError;
class BadGatewayError extends MoleculerError {
    constructor(message, data) {
        super(message, 502, "BAD_GATEWAY", data);
        this.name = "BadGatewayError";
    }
}
exports.BadGatewayError = BadGatewayError;
/** Answered by operations whose handlers belong to a later issue (see docs/operations.md). */
class NotImplementedError extends MoleculerError {
    constructor(action) {
        super(`'${action}' is not implemented yet`, 501, "NOT_IMPLEMENTED", { action });
        this.name = "NotImplementedError";
    }
}
exports.NotImplementedError = NotImplementedError;
//# sourceMappingURL=errors.js.map