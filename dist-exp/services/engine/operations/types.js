"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isPlainObject = exports.OperationError = void 0;
const objects_1 = require("../../../shared/objects");
Object.defineProperty(exports, "isPlainObject", { enumerable: true, get: function () { return objects_1.isPlainObject; } });
/** Bad incoming variables: the task finishes with state `error` and this in `job.error`. */
class OperationError extends Error {
    errors;
    code;
    constructor(message, errors = [], code = 400) {
        super(message);
        this.errors = errors;
        this.code = code;
        this.name = "OperationError";
    }
}
exports.OperationError = OperationError;
//# sourceMappingURL=types.js.map