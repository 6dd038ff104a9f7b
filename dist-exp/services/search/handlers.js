"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.find = find;
exports.createTag = createTag;
exports.listTags = listTags;
exports.deleteTag = deleteTag;
exports.attachTag = attachTag;
exports.detachTag = detachTag;
exports.ensureIndexes = ensureIndexes;
const search_registry_1 = require("../../shared/search-registry");
const find_1 = require("./find");
const tags = __importStar(require("./tags"));
function find(ctx) {
    return (0, find_1.findEverywhere)(this.store, ctx.params.data);
}
function createTag(ctx) {
    return tags.createTag(this.store, ctx.params, ctx.meta.caller?.accountId);
}
function listTags() {
    return tags.listTags(this.store);
}
function deleteTag(ctx) {
    return tags.deleteTag(this.store, ctx.params.id);
}
function attachTag(ctx) {
    return tags.attachTag(this.store, ctx.params);
}
function detachTag(ctx) {
    return tags.detachTag(this.store, ctx.params);
}
/**
 * The registry's indexes speed search up but are not needed for right answers, so one that
 * clashes with an index its owning service made differently is logged, not fatal.
 */
async function ensureIndexes(service) {
    await tags.ensureTagIndexes(service.store);
    for (const entry of search_registry_1.SEARCHABLES) {
        for (const index of entry.indexes) {
            try {
                await service.store.collection(entry.collection).createIndex(index);
            }
            catch (err) {
                service.logger.warn(`search index ${JSON.stringify(index.keys)} on ${entry.collection} not created: ${err.message}`);
            }
        }
    }
}
//# sourceMappingURL=handlers.js.map