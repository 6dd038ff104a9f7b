"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OPERATION_VARIABLES = exports.PURE_OPERATIONS = exports.childRequest = exports.childDetails = exports.loopItems = exports.delayMs = exports.OperationError = void 0;
const evaluation_1 = require("./evaluation");
const merge_1 = require("./merge");
const query_1 = require("./query");
var types_1 = require("./types");
Object.defineProperty(exports, "OperationError", { enumerable: true, get: function () { return types_1.OperationError; } });
var delay_1 = require("./delay");
Object.defineProperty(exports, "delayMs", { enumerable: true, get: function () { return delay_1.delayMs; } });
var for_each_1 = require("./for-each");
Object.defineProperty(exports, "loopItems", { enumerable: true, get: function () { return for_each_1.loopItems; } });
var child_job_1 = require("./child-job");
Object.defineProperty(exports, "childDetails", { enumerable: true, get: function () { return child_job_1.childDetails; } });
Object.defineProperty(exports, "childRequest", { enumerable: true, get: function () { return child_job_1.childRequest; } });
/** Operations that compute their outcome from their incoming variables alone. */
exports.PURE_OPERATIONS = {
    evaluation: evaluation_1.evaluation,
    query: query_1.query,
    merge: merge_1.merge,
};
exports.OPERATION_VARIABLES = {
    evaluation: {
        summary: "Compare operands; success when the comparison holds, failure otherwise",
        incoming: { operand_1: null, operator: "==", operand_2: null, evaluations: null, all_true_flag: true },
        outgoing: { return_value: null },
    },
    query: {
        summary: "Read a value out of an object by a path",
        incoming: { obj: null, query: "", pass_on_null: false },
        outgoing: { return_data: null },
    },
    merge: {
        summary: "Merge objects and {key, value} pairs into one object",
        incoming: { data_to_merge: [] },
        outgoing: { merged_object: null },
    },
    delay: {
        summary: "Wait a number of seconds (durably: survives a replica's death)",
        incoming: { time: 0 },
        outgoing: {},
    },
    childJob: {
        summary: "Run a job of another workflow and finish when it ends",
        incoming: { workflow: "", variables: {}, description: "" },
        outgoing: { job_details: null },
    },
    forEach: {
        summary: "Run the loop body (the loop transitions) once per item of a list",
        incoming: { data_array: [] },
        outgoing: { current_item: null, index: 0, results: [] },
    },
};
//# sourceMappingURL=index.js.map