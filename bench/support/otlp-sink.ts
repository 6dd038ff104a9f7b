import path from "node:path";
import { spawnTracked } from "./children";

/**
 * The OTLP receiver in a child process (./otlp-sink-node.ts; under valgrind it runs natively, as
 * valgrind does not follow children); answers its endpoint.
 */
export function startSink(): Promise<string> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "otlp-sink-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(`http://127.0.0.1:${m.port}`));
    child.once("exit", (code) => reject(new Error(`otlp sink exited ${code}`)));
  });
}
