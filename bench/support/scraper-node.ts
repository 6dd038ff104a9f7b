/**
 * Child process of `bench:observability`: scrapes the /metrics URL given as its argument once a
 * second, as Prometheus would (gzip accepted, the whole text read), from outside the platform's
 * process, so the bench bills the platform for answering scrapes and not for making them.
 */
import "./watchdog";

const url = process.argv[2];
setInterval(() => {
  void fetch(url)
    .then((r) => r.text())
    .catch(() => undefined);
}, 1000);
