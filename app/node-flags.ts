/**
 * The V8 flags every platform process is started with: `npm start`, the image's CMD
 * (deploy/Dockerfile) and the benches' platform processes. V8 reads them only at start-up
 * (`v8.setFlagsFromString` cannot resize a heap that exists), so they live on the command line;
 * test/deploy/deploy.test.ts holds the start scripts and the image to this list.
 *
 * `--max-semi-space-size=16`: the young generation's two halves at most 16 MB each. V8 otherwise
 * grows them to 32-64 MB under the engine's load, and a scavenge's pause grows with them: it copies
 * what is still alive, about a tenth of what was allocated since the last one, whatever the size
 * (docs/performance-rounds.md, sixteenth round). Capped, the main thread stops for 2-4 ms at a time
 * instead of 8-30, more often, for about the same instructions (+0.5 % a transition; 8 MB cost
 * +3.3 %): a job that meets a scavenge waits less (docs/performance-rounds.md, twenty-second round).
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=16"];
