/**
 * Adapters: the stored instance and what reads answer (spec "Adapter", operation 19).
 *
 * Stored (collection `adapters`, `name` unique):
 *   { _id, name, type, description, tags, properties: {id, type, properties (credentials sealed),
 *     brokers, groups}, loggerProps, isEncrypted, model, state, generation,
 *     _meta: {created, updated, createdBy, updatedBy} }
 * `profiling` and `virtual` are answered, never stored: they follow from the stored settings, so
 * they cannot disagree with them (docs/catalog.md):
 *   profiling  the adapter writes per-call timing metrics: `loggerProps.metrics_filename` is set.
 *   virtual    the adapter has no network target of its own: `properties.properties` names none of
 *              TARGET_KEYS (`local_aaa` checks accounts in the platform; a stub adapter for
 *              workflow tests answers by itself). Operations through a virtual adapter reach no
 *              device or orchestrator.
 */
import type { Adapter } from "../../shared/contracts/resources";

export interface StoredAdapter {
  _id: string;
  name: string;
  type: string;
  description: string;
  tags: string[];
  properties: { id: string; type: string; properties?: Record<string, unknown>; [k: string]: unknown };
  loggerProps?: Record<string, unknown>;
  isEncrypted: boolean;
  model?: string;
  /** Lifecycle (PUT /adapters/:name/stop|start): absent or RUNNING answers calls; STOPPED does not. */
  state?: "RUNNING" | "STOPPED";
  /** Bumped by every restart; each replica drops connections made for an older generation. */
  generation?: number;
  /** `updatedBy`: the account (`_id`) of the last update (PUT /adapters/:name/properties), or `system`. */
  _meta: { created: string; updated: string; createdBy: string; updatedBy?: string };
}

/** Keys (lowercased, letters and digits only) that name where an adapter connects to. */
export const TARGET_KEYS = ["host", "hostname", "hosts", "url", "uri", "baseurl", "address", "endpoint"];

export function isVirtual(settings: Record<string, unknown> | undefined): boolean {
  return !Object.entries(settings ?? {}).some(
    ([key, value]) =>
      TARGET_KEYS.includes(key.toLowerCase().replace(/[^a-z0-9]/g, "")) &&
      value !== null &&
      value !== "" &&
      !(Array.isArray(value) && value.length === 0),
  );
}

export function isProfiling(loggerProps: Record<string, unknown> | undefined): boolean {
  const file = loggerProps?.metrics_filename;
  return typeof file === "string" && file.trim() !== "";
}

/** An adapter as every answer carries it: the stored instance plus `profiling` and `virtual`. */
export function toAdapter(doc: StoredAdapter): Adapter {
  return {
    ...doc,
    profiling: isProfiling(doc.loggerProps),
    virtual: isVirtual(doc.properties.properties),
  };
}
