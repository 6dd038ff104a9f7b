"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.loggerOptions = loggerOptions;
/**
 * Logs (docs/operations-guide.md#logs). Readable text stays the default for a terminal;
 * LOG_FORMAT=json writes one JSON object a line with `time`, `level`, `service`, `node`,
 * `requestId` and `traceId` (the id the trace exporter gives the request's spans), and `msg`.
 *
 * The request and trace ids come from the action being run (./request-scope.ts), so a log line
 * written anywhere under it (store, helpers, awaited callbacks) carries them without passing them
 * around.
 *
 * What a line may hold: messages are written by our code and name no secret; objects passed to the
 * logger are printed with credential members redacted (shared/secrets' rule), as a last guard.
 */
const node_path_1 = __importDefault(require("node:path"));
const secrets_1 = require("../secrets");
const telemetry_1 = require("../telemetry");
const request_scope_1 = require("./request-scope");
function printable(arg) {
    if (arg instanceof Error)
        return arg.message;
    if (typeof arg === "object" && arg !== null) {
        try {
            return JSON.stringify((0, secrets_1.redactCredentials)(arg));
        }
        catch {
            return "[unprintable]";
        }
    }
    return String(arg);
}
/** One JSON object a line; the request's ids when the line is written under an action. */
function jsonFormatter(type, args, bindings) {
    const requestId = (0, request_scope_1.currentContext)()?.requestID ?? undefined;
    return [
        JSON.stringify({
            time: new Date().toISOString(),
            level: type,
            service: bindings?.svc ?? bindings?.mod,
            node: bindings?.nodeID,
            ...(requestId && { requestId, traceId: (0, telemetry_1.traceIdOf)(requestId) }),
            msg: args.map(printable).join(" "),
        }),
    ];
}
function consoleLogger(level, format) {
    if (format === "json")
        return {
            type: "Console",
            options: { level, formatter: jsonFormatter, colors: false, moduleColors: false },
        };
    return { type: "Console", options: { level, formatter: "short", colors: process.stdout.isTTY === true } };
}
/**
 * The console logger, and with LOG_FILE also JSON lines appended to that file at LOG_FILE_LEVEL
 * (for a host without a log collector, and for the test run's check that no secret is ever logged).
 */
function loggerOptions(level, format, file) {
    const loggers = [consoleLogger(level, format)];
    if (file)
        loggers.push({
            type: "File",
            options: {
                level: file.level,
                folder: node_path_1.default.dirname(file.path),
                filename: node_path_1.default.basename(file.path),
                formatter: jsonFormatter,
                colors: false,
                interval: 200,
            },
        });
    return loggers;
}
//# sourceMappingURL=logging.js.map