"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ALL_SERVICES = exports.SERVICE_MODULES = void 0;
exports.serviceSchemas = serviceSchemas;
const gateway_service_1 = __importDefault(require("../gateway/gateway.service"));
const accounts_service_1 = __importDefault(require("../services/accounts/accounts.service"));
const adapters_service_1 = __importDefault(require("../services/adapters/adapters.service"));
const configuration_service_1 = __importDefault(require("../services/configuration/configuration.service"));
const devices_service_1 = __importDefault(require("../services/devices/devices.service"));
const engine_service_1 = __importDefault(require("../services/engine/engine.service"));
const forms_service_1 = __importDefault(require("../services/forms/forms.service"));
const prebuilts_service_1 = __importDefault(require("../services/prebuilts/prebuilts.service"));
const profiles_service_1 = __importDefault(require("../services/profiles/profiles.service"));
const scheduler_service_1 = __importDefault(require("../services/scheduler/scheduler.service"));
const search_service_1 = __importDefault(require("../services/search/search.service"));
const store_service_1 = __importDefault(require("../services/store/store.service"));
exports.SERVICE_MODULES = {
    gateway: gateway_service_1.default,
    store: store_service_1.default,
    accounts: accounts_service_1.default,
    forms: forms_service_1.default,
    engine: engine_service_1.default,
    configuration: configuration_service_1.default,
    scheduler: scheduler_service_1.default,
    search: search_service_1.default,
    prebuilts: prebuilts_service_1.default,
    profiles: profiles_service_1.default,
    adapters: adapters_service_1.default,
    devices: devices_service_1.default,
};
exports.ALL_SERVICES = Object.keys(exports.SERVICE_MODULES);
/** The schemas of the named services (all when `names` is undefined). Unknown names are an error. */
function serviceSchemas(config, names = config.services) {
    const wanted = names ?? exports.ALL_SERVICES;
    const unknown = wanted.filter((n) => !(n in exports.SERVICE_MODULES));
    if (unknown.length > 0)
        throw new Error(`Unknown service(s) in SERVICES: ${unknown.join(", ")}. Known: ${exports.ALL_SERVICES.join(", ")}`);
    return wanted.map((name) => {
        const mod = exports.SERVICE_MODULES[name];
        return typeof mod === "function" ? mod(config) : mod;
    });
}
//# sourceMappingURL=services.js.map