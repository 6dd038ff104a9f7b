/** Text helpers shared by the services. */

/** Escapes every regex metacharacter: user text is data, never a pattern. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

export function nowIso(): string {
  return new Date().toISOString();
}
