"use strict";
/** Reads Server-Sent Events (GET /events) in tests. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.openStream = openStream;
/** Opens an SSE stream and collects its events until `close()`. */
async function openStream(baseUrl, token) {
    const controller = new AbortController();
    const res = await fetch(`${baseUrl}/events`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
    });
    const events = [];
    let buffer = "";
    const reader = res.body.getReader();
    const pump = (async () => {
        try {
            for (;;) {
                const { value, done } = await reader.read();
                if (done)
                    return;
                buffer += Buffer.from(value).toString("utf8");
                let end;
                while ((end = buffer.indexOf("\n\n")) >= 0) {
                    const frame = buffer.slice(0, end);
                    buffer = buffer.slice(end + 2);
                    const event = /^event: (.*)$/m.exec(frame)?.[1];
                    const data = /^data: (.*)$/m.exec(frame)?.[1];
                    if (event && data)
                        events.push({ event, data: JSON.parse(data) });
                }
            }
        }
        catch {
            /* aborted */
        }
    })();
    return {
        res,
        events,
        close: async () => {
            controller.abort();
            await pump;
        },
    };
}
//# sourceMappingURL=sse.js.map