/**
 * The broker's validator: fastest-validator, as Moleculer's default, except that a rejected value
 * never leaves it (docs/security.md#what-is-never-logged). Moleculer logs every rejected call at
 * debug level with the error's data, and fastest-validator puts the rejected value in each entry's
 * `actual`: a numeric password sent to /login would reach the log. Entries keep their field, type and
 * message, never `actual`.
 *
 * A member an object's schema forbids (`$$strict: true`, `strict: true`) is named by its own path:
 * fastest-validator reports "The object '' contains forbidden keys: 'body'" once per object (the
 * root's path empty), which names neither the member nor where it is; each forbidden key becomes an
 * entry of its own, `field` its full path (`body`, `params.foo`, `memberOf[0].aaaManaged`), the
 * message naming that path and the members allowed there.
 */
import { Validators } from "moleculer";

interface Entry {
  actual?: unknown;
  expected?: unknown;
  field?: string;
  message?: string;
  type?: string;
}
type CheckResult = true | Entry[];
type Checker = (params: unknown, opts?: unknown) => CheckResult | Promise<CheckResult>;

/** A key as the client sent it, bounded: it is echoed in the answer. */
const keyText = (key: string) => (key.length > 64 ? `${key.slice(0, 64)}...` : key);

/** One entry per forbidden key of an objectStrict entry, each naming the key's full path. */
function forbiddenKeys({ actual, expected, field, type }: Entry): Entry[] {
  const keys = String(actual ?? "")
    .split(", ")
    .filter((k) => k !== "");
  const allowed = String(expected ?? "");
  return keys.map((key) => {
    const path = field ? `${field}.${keyText(key)}` : keyText(key);
    return {
      type,
      field: path,
      message:
        `The property '${path}' is not allowed` +
        (allowed ? ` (allowed here: ${allowed}).` : " (no members here)."),
    };
  });
}

function redact(result: CheckResult): CheckResult {
  if (result === true || !Array.isArray(result)) return result;
  return result.flatMap((entry) => {
    if (entry.type === "objectStrict") return forbiddenKeys(entry);
    const { actual: _actual, ...kept } = entry;
    return [kept];
  });
}

export class RedactingValidator extends Validators.Fastest {
  override compile(
    schema: Record<string, unknown>,
  ): ReturnType<InstanceType<typeof Validators.Fastest>["compile"]> {
    const check = super.compile(schema) as unknown as Checker;
    const redacting = (params: unknown, opts?: unknown) => {
      const result = check(params, opts);
      return result instanceof Promise ? result.then(redact) : redact(result);
    };
    // fastest-validator marks checkers with async rules; Moleculer reads the mark.
    return Object.assign(redacting, { async: (check as { async?: boolean }).async }) as unknown as ReturnType<
      InstanceType<typeof Validators.Fastest>["compile"]
    >;
  }
}
