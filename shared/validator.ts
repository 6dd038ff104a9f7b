/**
 * The broker's validator: fastest-validator, as Moleculer's default, except that a rejected value
 * never leaves it (docs/security.md#what-is-never-logged). Moleculer logs every rejected call at
 * debug level with the error's data, and fastest-validator puts the rejected value in each entry's
 * `actual`: a numeric password sent to /login would reach the log. Entries keep their field, type and
 * message; `actual` is kept only where it names forbidden keys (objectStrict), never a value.
 */
import { Validators } from "moleculer";

type CheckResult = true | { actual?: unknown; type?: string }[];
type Checker = (params: unknown, opts?: unknown) => CheckResult | Promise<CheckResult>;

function redact(result: CheckResult): CheckResult {
  if (result === true || !Array.isArray(result)) return result;
  return result.map(({ actual, ...entry }) => (entry.type === "objectStrict" ? { ...entry, actual } : entry));
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
