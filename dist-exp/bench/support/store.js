"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.withStore = withStore;
const runtime_1 = require("../../shared/runtime");
async function withStore(broker, fn) {
    const store = await (0, runtime_1.acquireStore)(broker);
    try {
        return await fn(store);
    }
    finally {
        await store.close();
    }
}
//# sourceMappingURL=store.js.map