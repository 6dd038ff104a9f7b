"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.REPORTS = exports.BATCHES = exports.BACKUPS = exports.NODES = exports.TREES = exports.PARSERS = void 0;
exports.PARSERS = "config_parsers";
exports.TREES = "config_trees";
exports.NODES = "config_nodes";
exports.BACKUPS = "config_backups";
exports.BATCHES = "compliance_batches";
exports.REPORTS = "compliance_reports";
//# sourceMappingURL=types.js.map