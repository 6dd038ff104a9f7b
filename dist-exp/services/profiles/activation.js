"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.INACTIVE = exports.ACTIVE_ORDER = void 0;
exports.activeProfile = activeProfile;
exports.activate = activate;
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
exports.ACTIVE_ORDER = { activation: -1, "_meta.created": 1, _id: 1 };
/** The activation of a profile that may not become active without an admin activating it. */
exports.INACTIVE = -1;
async function activeProfile(profiles) {
    const [top] = await profiles.find({ activation: { $gte: 0 } }, { sort: exports.ACTIVE_ORDER, limit: 1 });
    return top ?? null;
}
const MAX_ATTEMPTS = 8;
/** Makes `id` the active profile; answers it. 404 when it does not exist. */
async function activate(profiles, id) {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await activeProfile(profiles);
        if (current?._id === id)
            return current;
        const updated = await profiles.findOneAndUpdate({ _id: id }, {
            $set: {
                activation: (current?.activation ?? 0) + 1,
                "_meta.updated": (0, text_1.nowIso)(),
            },
        });
        if (!updated)
            throw new errors_1.NotFoundError("Profile", id);
        const now = await activeProfile(profiles);
        if (now?._id === id)
            return updated;
        // Another activation landed with the same or a higher number: go again above it.
    }
    throw new errors_1.ConflictError(`Profile '${id}' could not be activated: other activations kept winning; retry`);
}
//# sourceMappingURL=activation.js.map