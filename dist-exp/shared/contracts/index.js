"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.routeKey = exports.contracts = void 0;
exports.call = call;
exports.operations = operations;
const accounts_1 = require("./accounts");
const adapters_1 = require("./adapters");
const configuration_1 = require("./configuration");
const devices_1 = require("./devices");
const engine_1 = require("./engine");
const forms_1 = require("./forms");
const gateway_1 = require("./gateway");
const prebuilts_1 = require("./prebuilts");
const profiles_1 = require("./profiles");
const scheduler_1 = require("./scheduler");
const search_1 = require("./search");
exports.contracts = {
    accounts: accounts_1.accounts,
    adapters: adapters_1.adapters,
    configuration: configuration_1.configuration,
    devices: devices_1.devices,
    engine: engine_1.engine,
    forms: forms_1.forms,
    gateway: gateway_1.gateway,
    prebuilts: prebuilts_1.prebuilts,
    profiles: profiles_1.profiles,
    scheduler: scheduler_1.scheduler,
    search: search_1.search,
};
/** `broker.call`/`ctx.call` with the action's params and result types from its contract. */
function call(caller, action, params, opts) {
    return caller.call(action, params, opts);
}
/** The key of a route in the gateway's table: `GET /path`. */
const routeKey = (op) => `${op.method} ${op.path}`;
exports.routeKey = routeKey;
/** Every route of the API, from the contracts: the gateway's aliases, role table and OpenAPI. */
function operations() {
    const out = [];
    for (const [service, def] of Object.entries(exports.contracts)) {
        for (const [name, contract] of Object.entries(def.actions)) {
            if (!contract.http)
                continue;
            const op = { ...contract.http, action: `${def.name}.${name}`, service, contract };
            out.push(op);
            for (const alias of contract.http.aliases ?? [])
                out.push({
                    ...op,
                    method: alias.method ?? op.method,
                    path: alias.path,
                    spec: undefined,
                    aliasOf: op.path,
                });
        }
    }
    return out;
}
//# sourceMappingURL=index.js.map