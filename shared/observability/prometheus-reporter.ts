/**
 * Moleculer's Prometheus reporter, with each series' label text made once (docs/operations-guide.md#cost).
 *
 * A scrape writes ~800 lines (a histogram series is 15 of them, one per bucket); for each line
 * Moleculer's `labelsToStr` merges three objects and formats and escapes every label again: most of
 * the 3-4 ms a scrape cost the process, once a second. The text of a series' labels depends only
 * on the item's labels, which Moleculer copies when it makes the item and never changes, and on
 * the line's extra label (`le`, `quantile`): it is kept per item labels and extra label, made the
 * first time by Moleculer's own `labelsToStr`, so the text is Moleculer's to the byte.
 */
import { MetricReporters } from "moleculer";

type LabelValues = Record<string, unknown>;

interface PrometheusReporterLike {
  labelsToStr(itemLabels?: LabelValues | null, extraLabels?: LabelValues | null): string;
}

// Moleculer's typings do not list the reporter's methods.
const Prometheus = MetricReporters.Prometheus as unknown as new (opts: object) => PrometheusReporterLike;

export class PrometheusReporter extends Prometheus {
  /** Item labels -> extra label ("" when none, else name and value) -> text. */
  private readonly labelText = new WeakMap<object, Map<string, string>>();

  override labelsToStr(itemLabels?: LabelValues | null, extraLabels?: LabelValues | null): string {
    // Without item labels (or with several extras) there is no stable key: Moleculer's own path.
    if (!itemLabels) return super.labelsToStr(itemLabels, extraLabels);
    let key = "";
    if (extraLabels) {
      const names = Object.keys(extraLabels);
      if (names.length !== 1) return super.labelsToStr(itemLabels, extraLabels);
      key = `${names[0]}\u0000${String(extraLabels[names[0]])}`;
    }
    let byExtra = this.labelText.get(itemLabels);
    if (byExtra === undefined) this.labelText.set(itemLabels, (byExtra = new Map()));
    let text = byExtra.get(key);
    if (text === undefined) byExtra.set(key, (text = super.labelsToStr(itemLabels, extraLabels)));
    return text;
  }
}
