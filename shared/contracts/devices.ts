/** devices: device lookup for change procedures (spec operation 15). */
import { defineService } from "./define";
import { int, optString, returns } from "./schema";
import type { Device } from "./resources";

export const devices = defineService("devices", {
  find: {
    params: {
      options: {
        type: "object",
        strict: "remove",
        props: {
          start: int(0),
          limit: int(1),
          entity: optString,
          filter: optString,
          sort: {
            type: "array",
            optional: true,
            items: { type: "object", strict: "remove", props: { name: { type: "enum", values: [1, -1] } } },
          },
        },
      },
    },
    result: returns<Device[]>(),
    http: {
      method: "POST",
      path: "/mop/deviceObjects",
      access: ["admin", "engineering", "support"],
      spec: 15,
      summary: "Devices whose name matches the options",
    },
  },
});
