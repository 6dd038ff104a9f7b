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
import path from "node:path";
import type { BrokerOptions } from "moleculer";
import { redactCredentials } from "../secrets";
import { traceIdOf } from "../telemetry";
import { currentContext } from "./request-scope";

function printable(arg: unknown): string {
  if (arg instanceof Error) return arg.message;
  if (typeof arg === "object" && arg !== null) {
    try {
      return JSON.stringify(redactCredentials(arg));
    } catch {
      return "[unprintable]";
    }
  }
  return String(arg);
}

/** One JSON object a line; the request's ids when the line is written under an action. */
function jsonFormatter(type: string, args: unknown[], bindings: Record<string, any>): string[] {
  const requestId = currentContext()?.requestID ?? undefined;
  return [
    JSON.stringify({
      time: new Date().toISOString(),
      level: type,
      service: bindings?.svc ?? bindings?.mod,
      node: bindings?.nodeID,
      ...(requestId && { requestId, traceId: traceIdOf(requestId) }),
      msg: args.map(printable).join(" "),
    }),
  ];
}

function consoleLogger(level: string, format: "text" | "json") {
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
export function loggerOptions(
  level: string,
  format: "text" | "json",
  file?: { path: string; level: string },
): BrokerOptions["logger"] {
  const loggers: unknown[] = [consoleLogger(level, format)];
  if (file)
    loggers.push({
      type: "File",
      options: {
        level: file.level,
        folder: path.dirname(file.path),
        filename: path.basename(file.path),
        formatter: jsonFormatter,
        colors: false,
        interval: 200,
      },
    });
  return loggers as BrokerOptions["logger"];
}
