/**
 * Which adapter settings are credentials (docs/platform-rules.md#secrets: "adapter
 * passwords"), so they are stored encrypted and never answered in plain text.
 *
 * A member of `properties.properties`, at any depth (inside nested objects and arrays too), is a
 * credential when its key, lowercased with everything but letters and digits dropped, ENDS WITH
 * one of CREDENTIAL_SUFFIXES: `password`, `adminPassword`, `db_password`, `token`, `authToken`,
 * `client_secret`, `apiKey`, `api-key`, `privateKey`, `ssh_private_key`, `passphrase`,
 * `community`, `snmpCommunity`, `credential`, `pwd`, `pass`, `secretKey`, `accessKey`,
 * `sshKey` ... but not `tokenUrl`, `passwordPolicy` or `username`. A credential's string or number value is sealed; when it is an object or array,
 * every string and number inside it is sealed (a `credentials: {...}` block is secret as a whole).
 *
 * Request headers (`headers: {<header name>: value}`, at any depth) have a wider rule, since a
 * header name need not end with the word that makes it secret: a header whose name holds
 * `authorization`, `cookie`, `token`, `key`, `secret`, `password` or `credential` (any case:
 * `Authorization`, `Proxy-Authorization`, `X-Auth-Token`, `X-API-Key`, `Cookie`) is sealed too. The
 * orchestrator target unseals header values in memory only, when it builds a request (./orchestrator/target.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { sealValue } from "../../shared/pointers";
import { CREDENTIAL_SUFFIXES, isCredentialKey } from "../../shared/secrets";

export { CREDENTIAL_SUFFIXES, isCredentialKey };

type Json = unknown;

/** A copy of `value` with every string and number inside it sealed. */
function sealAll(key: Buffer, value: Json): Json {
  if (Array.isArray(value)) return value.map((v) => sealAll(key, v));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sealAll(key, v)]));
  return sealValue(key, value);
}

const CREDENTIAL_HEADER_WORDS = /authorization|cookie|token|key|secret|password|passwd|credential/i;

/** Does a request header of this name carry a credential? */
export function isCredentialHeader(name: string): boolean {
  return isCredentialKey(name) || CREDENTIAL_HEADER_WORDS.test(name);
}

/** A `headers` member: an object of header name -> value. */
const isHeadersBlock = (k: string, v: Json) =>
  k.toLowerCase() === "headers" && typeof v === "object" && v !== null && !Array.isArray(v);

/** Is the member `k` of a settings object a credential (in a headers block, by the header rule)? */
const isSecretMember = (k: string, inHeaders: boolean) =>
  inHeaders ? isCredentialHeader(k) : isCredentialKey(k);

/** A copy of an adapter's `properties.properties` with every credential sealed. */
export function sealCredentials(key: Buffer, settings: Json, inHeaders = false): Json {
  if (Array.isArray(settings)) return settings.map((v) => sealCredentials(key, v));
  if (typeof settings !== "object" || settings === null) return settings;
  return Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [
      k,
      isSecretMember(k, inHeaders) ? sealAll(key, v) : sealCredentials(key, v, isHeadersBlock(k, v)),
    ]),
  );
}

/** Is there a string or number anywhere in `value`? (what sealAll seals) */
function holdsSealable(value: Json): boolean {
  if (typeof value === "string" || typeof value === "number") return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(holdsSealable);
}

/** Does sealCredentials seal anything in these settings? (the adapter's `isEncrypted`) */
export function holdsCredentials(settings: Json, inHeaders = false): boolean {
  if (typeof settings !== "object" || settings === null) return false;
  return Object.entries(settings).some(([k, v]) =>
    isSecretMember(k, inHeaders) ? holdsSealable(v) : holdsCredentials(v, isHeadersBlock(k, v)),
  );
}

const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * An update's settings sealed against the stored ones (PUT /adapters/:name/properties): credential
 * members are sealed as on create, except that
 *  - one left out of an object the update sends keeps its stored (sealed) value,
 *  - one resent exactly as stored (the sealed `enc:v1:...` text a read answers) keeps it: only
 *    this adapter's own stored value at that same place is kept so, never another object's,
 *  - one sent as `null` is removed.
 * Anything else sent for a credential is plaintext to us and sealed, even if it looks sealed.
 */
export function sealUpdate(key: Buffer, incoming: Json, stored: Json, inHeaders = false): Json {
  if (Array.isArray(incoming))
    return incoming.map((v, i) => sealUpdate(key, v, Array.isArray(stored) ? stored[i] : undefined));
  if (!isObject(incoming)) return incoming;
  const prior = isObject(stored) ? stored : {};
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(incoming)) {
    if (!isSecretMember(k, inHeaders)) out[k] = sealUpdate(key, v, prior[k], isHeadersBlock(k, v));
    else if (v === null) continue;
    else out[k] = k in prior && isDeepStrictEqual(v, prior[k]) ? prior[k] : sealAll(key, v);
  }
  for (const [k, v] of Object.entries(prior))
    if (!(k in incoming) && isSecretMember(k, inHeaders)) out[k] = v;
  return out;
}
