/**
 * GET /openapi.json: an OpenAPI 3.1 document of every route, from the same schemas that validate
 * requests; each 200 response is its action's result schema (`result: returns(rule)` in the
 * contract), shared resources (Account, Job...) once under `components.schemas`.
 */
import { operations, type Operation } from "../shared/contracts";
import { propsToJsonSchema, ruleToJsonSchema, type JsonSchema, type Rule } from "../shared/contracts/schema";
import { BODY_METHODS } from "../shared/contracts/define";
import { ERROR_CATALOGUE } from "../shared/errors";

/** docs/platform-rules.md#errors: names and types from the catalogue (shared/errors.ts), `data` always. */
const errorBody = {
  type: "object",
  required: ["name", "message", "code", "type", "data"],
  properties: {
    name: { type: "string", enum: [...new Set(ERROR_CATALOGUE.map((e) => e.name))] },
    message: { type: "string" },
    code: { type: "integer" },
    type: { type: "string", enum: [...new Set(ERROR_CATALOGUE.map((e) => e.type))] },
    data: {},
  },
};

const errorResponses = {
  "400": "VALIDATION_ERROR or INVALID_REQUEST_BODY",
  "401": "UNAUTHORIZED",
  "403": "FORBIDDEN",
  "404": "NOT_FOUND",
  "409": "CONFLICT",
  "413": "PAYLOAD_TOO_LARGE",
  "415": "UNSUPPORTED_MEDIA_TYPE",
  "429": "RATE_LIMITED",
  "503": "SERVICE_UNAVAILABLE (ADAPTER_BUSY, ADAPTER_STOPPED or CIRCUIT_OPEN from an adapter)",
  "504": "TIMEOUT",
};

/**
 * The error statuses of an operation: the ones every operation can answer, and those its contract
 * declares (`errors`: e.g. 502 from an upstream system), in status order.
 */
export function errorStatuses(op: Operation): Record<string, string> {
  const all: Record<string, string> = { ...errorResponses, ...op.contract.errors };
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => Number(a) - Number(b)));
}

function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
}

function describeAccess(op: Operation): string {
  if (op.access === "public") return "No credentials needed.";
  if (op.access === "authenticated") return "Any authenticated caller.";
  return `Roles: ${op.access.join(", ")}.`;
}

function operationObject(op: Operation, components: Record<string, JsonSchema>): Record<string, unknown> {
  const pathParams = pathParamsOf(op.path);
  const params = op.contract.params;
  const parameters: Record<string, unknown>[] = pathParams.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: ruleToJsonSchema((params[name] as Rule) ?? { type: "string" }),
  }));
  const bodyProps = Object.fromEntries(Object.entries(params).filter(([k]) => !pathParams.includes(k)));
  let requestBody: Record<string, unknown> | undefined;
  if (BODY_METHODS.includes(op.method)) {
    const schema = op.bodyParam
      ? ruleToJsonSchema(params[op.bodyParam] as Rule)
      : propsToJsonSchema(bodyProps);
    requestBody = {
      required: !op.bodyParam,
      content: {
        "application/json": { schema },
        ...(op.form && { "application/x-www-form-urlencoded": { schema } }),
      },
    };
  } else if (op.objectParam) {
    parameters.push({
      name: op.objectParam,
      in: "query",
      required: false,
      style: "deepObject",
      explode: true,
      description:
        "Also accepted flattened (each member a query key) or as JSON text; a JSON body on the GET wins.",
      schema: ruleToJsonSchema(params[op.objectParam] as Rule),
    });
  } else {
    for (const [name, rule] of Object.entries(bodyProps)) {
      if (name.startsWith("$$")) continue;
      parameters.push({ name, in: "query", required: false, schema: ruleToJsonSchema(rule as Rule) });
    }
  }
  const success =
    op.produces === "text"
      ? { "text/plain": { schema: { type: "string" } } }
      : op.produces === "sse"
        ? { "text/event-stream": { schema: { type: "string" } } }
        : { "application/json": { schema: resultSchema(op, components) } };
  return {
    // An alias is a route of its own: operation ids stay unique.
    operationId: op.aliasOf ? `${op.action}@${op.path}` : op.action,
    summary: op.summary,
    description: `${op.spec ? `Spec operation ${op.spec}. ` : ""}${op.aliasOf ? `The real product's path for \`${op.method} ${op.aliasOf}\`. ` : ""}${describeAccess(op)} Served by action \`${op.action}\`.`,
    tags: [op.service],
    ...(op.access !== "public" && {
      security: [{ bearer: [] }, { cookie: [] }, { basic: [] }, { queryToken: [] }],
    }),
    parameters,
    ...(requestBody && { requestBody }),
    responses: {
      "200": { description: "Success", content: success },
      ...Object.fromEntries(
        Object.entries(errorStatuses(op)).map(([code, type]) => [
          code,
          {
            description: type,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        ]),
      ),
    },
  };
}

/** The JSON Schema of what the action answers; `{}` (anything) when its contract declares none. */
export function resultSchema(op: Operation, components: Record<string, JsonSchema>): JsonSchema {
  const rule = op.contract.result?.rule;
  return rule ? sealed(ruleToJsonSchema(rule, components)) : {};
}

/**
 * A secret member of a params schema is `writeOnly`; an answer carries it in its sealed form
 * (docs/platform-rules.md#secrets), so a result schema says that instead.
 */
function sealed(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema)) return schema.map(sealed) as unknown as JsonSchema;
  if (!schema || typeof schema !== "object") return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "writeOnly") continue;
    out[key] = value && typeof value === "object" ? sealed(value as JsonSchema) : value;
  }
  if (schema.writeOnly) out.description = "A secret: answered sealed (enc:v1:...), never in plaintext.";
  return out;
}

export function buildOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const resources: Record<string, JsonSchema> = {};
  for (const op of operations()) {
    const path = op.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = operationObject(op, resources);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Automation Platform API",
      version,
      description: "Routes, parameters and roles generated from the service contracts.",
    },
    paths,
    components: {
      schemas: {
        Error: errorBody,
        ...Object.fromEntries(Object.entries(resources).map(([name, schema]) => [name, sealed(schema)])),
      },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        basic: { type: "http", scheme: "basic" },
        cookie: { type: "apiKey", in: "cookie", name: "token" },
        queryToken: { type: "apiKey", in: "query", name: "token" },
      },
    },
  };
}
