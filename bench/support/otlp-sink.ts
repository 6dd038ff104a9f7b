import path from "node:path";
import { spawnTracked } from "./children";

/** The OTLP receiver a bench exports to: where, its pid (its CPU is not the server's), what it got. */
export interface Sink {
  endpoint: string;
  pid: number;
  stats(): Promise<{ exports: number; bytes: number }>;
}

/**
 * The OTLP receiver in a child process (./otlp-sink-node.ts; under valgrind it runs natively, as
 * valgrind does not follow children).
 */
export function startSink(): Promise<Sink> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "otlp-sink-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { port: number }) =>
      resolve({
        endpoint: `http://127.0.0.1:${m.port}`,
        pid: child.pid!,
        stats: () =>
          new Promise((answer) => {
            child.once("message", (s: { exports: number; bytes: number }) => answer(s));
            child.send("stats");
          }),
      }),
    );
    child.once("exit", (code) => reject(new Error(`otlp sink exited ${code}`)));
  });
}
