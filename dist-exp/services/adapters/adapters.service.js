"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * adapters: adapter instances (spec operation 19, docs/platform-rules.md#supporting-operations). An instance is what
 * later operations name by `adapterId` (its `name`). Credentials in its settings are stored
 * encrypted (./credentials.ts has the one rule) and answered only in that stored form.
 * The orchestrator proxy (operations 1 and 2) and device lists (operation 15, through the devices
 * service) are in ./orchestrator/, lifecycle (stop/start/restart) in ./lifecycle.ts, health checks
 * and GET /health/adapters in ./health/ (docs/orchestrator.md).
 *
 * Collections `adapters` (layout in ./documents.ts), `name` unique; `adapter_health` (./health/checks.ts).
 */
const adapters_1 = require("../../shared/contracts/adapters");
const named_documents_1 = require("../../shared/named-documents");
const runtime_1 = require("../../shared/runtime");
const secrets_1 = require("../../shared/secrets");
const service_1 = require("../../shared/service");
const handlers_1 = require("./handlers");
const checks_1 = require("./health/checks");
const handlers_2 = require("./health/handlers");
const lifecycle_1 = require("./lifecycle");
const connections_1 = require("./orchestrator/connections");
const devices_1 = require("./orchestrator/devices");
const handlers_3 = require("./orchestrator/handlers");
const COLLECTION = "adapters";
exports.default = (0, service_1.typedService)({
    name: adapters_1.adapters.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(adapters_1.adapters, {
        restAction: handlers_3.restAction,
        restQuery: handlers_3.restQuery,
        create: handlers_1.create,
        list: handlers_1.list,
        get: handlers_1.get,
        delete: handlers_1.remove,
        stop: lifecycle_1.stop,
        start: lifecycle_1.start,
        restart: lifecycle_1.restart,
        healthList: handlers_2.healthList,
        healthGet: handlers_2.healthGet,
        checkHealth: handlers_2.checkHealth,
        deviceSources: devices_1.deviceSources,
        listDevices: devices_1.listDevices,
    }),
    methods: {
        adapters() {
            return (0, named_documents_1.namedDocuments)(this.store, COLLECTION, "Adapter");
        },
    },
    created() {
        this.secretKey = (0, secrets_1.loadKey)((0, runtime_1.configOf)(this.broker));
    },
    async started() {
        await (0, named_documents_1.ensureNameIndex)(this.store, COLLECTION);
        await this.store.collection(checks_1.HEALTH).createIndex({ keys: { nextCheckAt: 1 } });
        // Every replica runs the same timer; the store decides which one checks a due adapter.
        const tickMs = (0, runtime_1.configOf)(this.broker).adapters.healthTickMs;
        this.healthTimer = setInterval(() => {
            if (this.checking)
                return;
            this.checking = (0, checks_1.healthPass)(this)
                .catch((err) => this.logger.warn(`adapter health pass failed: ${err.message}`))
                .finally(() => (this.checking = undefined));
        }, tickMs);
        this.healthTimer.unref();
    },
    async stopped() {
        clearInterval(this.healthTimer);
        await this.checking;
        await (0, connections_1.closePools)();
    },
});
//# sourceMappingURL=adapters.service.js.map