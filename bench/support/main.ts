/** A bench's entry point: its process exits with the outcome (children and timers left behind do not keep it). */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
