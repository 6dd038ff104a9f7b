"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.startBare = startBare;
/** Baseline "bare": node:http answering fixed bytes, the ceiling any framework on Node works under. */
const node_http_1 = __importDefault(require("node:http"));
async function startBare(body, contentType) {
    const server = node_http_1.default.createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": contentType, "Content-Length": body.length });
        res.end(body);
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}/`,
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}
//# sourceMappingURL=bare.js.map