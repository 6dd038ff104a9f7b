/**
 * adapters: adapter instances (spec operation 19, docs/platform-rules.md#supporting-operations). An instance is what
 * later operations name by `adapterId` (its `name`). Credentials in its settings are stored
 * encrypted (./credentials.ts has the one rule) and answered only in that stored form.
 * The orchestrator proxy (operations 1 and 2) and device lists (operation 15, through the devices
 * service) are in ./orchestrator/, lifecycle (stop/start/restart) in ./lifecycle.ts, health checks
 * and GET /health/adapters in ./health/ (docs/orchestrator.md).
 *
 * Collections `adapters` (./adapters.repository.ts) and `adapter_health`
 * (./health/adapter-health.repository.ts).
 */
import type { Context } from "moleculer";
import { adapters as contract } from "../../shared/contracts/adapters";
import {
  ADAPTER_CHANGED_EVENT,
  ADAPTER_DELETED_EVENT,
  type AdapterChangedEvent,
} from "../../shared/contracts/events";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { AdaptersRepository } from "./adapters.repository";
import { create, get, list, remove, update, type AdaptersService } from "./handlers";
import { AdapterHealthRepository } from "./health/adapter-health.repository";
import { healthPass } from "./health/checks";
import { checkHealth, healthGet, healthList } from "./health/handlers";
import { restart, start, stop } from "./lifecycle";
import { closePools } from "./orchestrator/connections";
import { deviceSources, listDevices } from "./orchestrator/devices";
import { restAction, restQuery } from "./orchestrator/handlers";
import { TargetCache } from "./orchestrator/target-cache";

export default typedService<AdaptersService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, AdaptersService>(contract, {
    restAction,
    restQuery,
    create,
    update,
    list,
    get,
    delete: remove,
    stop,
    start,
    restart,
    healthList,
    healthGet,
    checkHealth,
    deviceSources,
    listDevices,
  }),

  events: {
    /** An adapter changed on some replica (this one too): its kept target goes (./orchestrator/target-cache.ts). */
    [ADAPTER_CHANGED_EVENT](this: AdaptersService, ctx: Context<AdapterChangedEvent>) {
      const name = ctx.params?.name;
      if (typeof name === "string") this.targets.forget(name);
      else this.targets.clear();
    },
    /** Sent by a delete beside the change event: forgetting twice costs nothing. */
    [ADAPTER_DELETED_EVENT](this: AdaptersService, ctx: Context<AdapterChangedEvent>) {
      const name = ctx.params?.name;
      if (typeof name === "string") this.targets.forget(name);
      else this.targets.clear();
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
    this.targets = new TargetCache();
  },

  async started() {
    this.adapters = new AdaptersRepository(this.store);
    this.health = new AdapterHealthRepository(this.store);
    await this.adapters.ensureIndexes();
    await this.health.ensureIndexes();
    // Every replica runs the same timer; the store decides which one checks a due adapter.
    const tickMs = configOf(this.broker).adapters.healthTickMs;
    this.healthTimer = setInterval(() => {
      if (this.checking) return;
      this.checking = healthPass(this)
        .catch((err: Error) => this.logger.warn(`adapter health pass failed: ${err.message}`))
        .finally(() => (this.checking = undefined));
    }, tickMs);
    this.healthTimer.unref();
  },

  async stopped() {
    clearInterval(this.healthTimer);
    await this.checking;
    await closePools();
  },
});
