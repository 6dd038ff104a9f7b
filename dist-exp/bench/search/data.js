"use strict";
/**
 * The search bench's data set: a deterministic catalog of a network-automation platform, spread
 * over every searchable collection the way a real one is (many workflows and forms, few profiles),
 * with names built from sites, device roles, vendors and actions, sentence descriptions, 0-3 tags
 * per object, and the bulk each kind of object carries (a workflow's tasks, a form's elements...),
 * so the store scans documents of realistic size.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.SITES = exports.MIX = void 0;
exports.prng = prng;
exports.makeTags = makeTags;
exports.makeCatalog = makeCatalog;
exports.makeQueries = makeQueries;
/** Objects per collection, as shares of the total. */
exports.MIX = {
    workflows: 0.35,
    forms: 0.2,
    automations: 0.2,
    config_trees: 0.12,
    config_parsers: 0.05,
    adapters: 0.04,
    repository_configs: 0.02,
    profiles: 0.02,
};
exports.SITES = [
    "nyc",
    "lon",
    "fra",
    "sin",
    "syd",
    "tok",
    "par",
    "ams",
    "chi",
    "dal",
    "sea",
    "sfo",
    "mia",
    "atl",
    "bos",
    "den",
    "phx",
    "yyz",
    "gru",
    "jnb",
    "bom",
    "del",
    "hkg",
    "icn",
    "mad",
    "mil",
    "sto",
    "waw",
    "dub",
    "zrh",
    "vie",
    "prg",
    "osl",
    "hel",
    "cph",
    "ist",
    "dxb",
    "doh",
    "scl",
    "mex",
];
const ROLES = ["core", "edge", "access", "dist", "wan", "dc", "lab"];
const VENDORS = ["Cisco", "Juniper", "Arista", "Nokia", "Palo Alto", "F5"];
const DEVICES = ["router", "switch", "firewall", "load balancer", "spine", "leaf"];
const PROTOCOLS = ["OSPF", "BGP", "IS-IS", "MPLS", "VXLAN", "EVPN", "LACP", "NTP"];
const ACTIONS = [
    "upgrade",
    "backup",
    "provision",
    "decommission",
    "audit",
    "remediate",
    "turnup",
    "rollback",
];
const TEAMS = ["noc", "neteng", "secops", "dcops", "wanops", "automation", "field", "lab"];
const ENVS = ["prod", "staging", "lab"];
/** A small deterministic PRNG (mulberry32): the same seed gives the same catalog. */
function prng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const hexId = (prefix, n) => prefix.toString(16).padStart(8, "0") + n.toString(16).padStart(16, "0");
function makeTags() {
    const names = [
        ...exports.SITES.map((s) => [`site:${s}`, `Objects of the ${s.toUpperCase()} site`]),
        ...TEAMS.map((t) => [`team:${t}`, `Owned by the ${t} team`]),
        ...ENVS.map((e) => [`env:${e}`, `Runs against ${e}`]),
        ...VENDORS.map((v) => [`vendor:${v.toLowerCase().replace(" ", "-")}`, `${v} equipment`]),
        ...PROTOCOLS.map((p) => [`proto:${p.toLowerCase()}`, `Touches ${p}`]),
        ["change-freeze", "Blocked during change freezes"],
        ["customer-facing", "Affects customer traffic"],
        ["needs-approval", "A person approves each run"],
    ];
    return names.map(([name, description], i) => ({ _id: hexId(0x7a6, i), name, description }));
}
/** `total` objects by collection, names unique within a collection. */
function makeCatalog(total, tags, seed = 42) {
    const random = prng(seed);
    const pick = (xs) => xs[Math.floor(random() * xs.length)];
    const out = {};
    const collections = Object.keys(exports.MIX);
    let made = 0;
    collections.forEach((collection, c) => {
        const n = c === collections.length - 1 ? total - made : Math.round(total * exports.MIX[collection]);
        made += n;
        out[collection] = Array.from({ length: n }, (_, i) => {
            const site = pick(exports.SITES);
            const role = pick(ROLES);
            const action = pick(ACTIONS);
            const vendor = pick(VENDORS);
            const device = pick(DEVICES);
            const protocol = pick(PROTOCOLS);
            const tagIds = Array.from({ length: Math.floor(random() * 4) }, () => pick(tags)._id);
            const base = {
                _id: hexId(0x5e0 + c, i),
                name: `${site}-${role}-${action}-${String(i).padStart(5, "0")}`,
                description: `${cap(action)} ${vendor} ${role} ${device}s in ${site.toUpperCase()}: ${protocol} checks, ${pick(TEAMS)} team`,
                tags: [...new Set(tagIds)],
            };
            return { ...base, ...bulk(collection, base, random) };
        });
        if (collection === "profiles")
            for (const p of out[collection])
                p.id = p.name;
    });
    return out;
}
const cap = (s) => s[0].toUpperCase() + s.slice(1);
/** What else each kind of object stores (never searched, but scanned past). */
function bulk(collection, o, random) {
    const count = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    switch (collection) {
        case "workflows": {
            const tasks = {};
            for (let t = 0; t < count(3, 8); t++)
                tasks[`t${t}`] = {
                    name: `step${t}`,
                    type: t % 3 === 0 ? "manual" : "automatic",
                    app: "devices",
                    variables: { incoming: { device: `$var.job.device${t}` }, outgoing: { result: null } },
                };
            return {
                tasks,
                transitions: { workflow_start: { t0: { state: "success", type: "standard" } } },
                groups: [],
            };
        }
        case "forms":
            return {
                elements: Array.from({ length: count(2, 6) }, (_, e) => ({
                    type: "text",
                    key: `f${e}`,
                    label: `Field ${e}`,
                })),
                groups: [],
                created: "2026-01-01T00:00:00.000Z",
            };
        case "automations":
            return { workflow: o.name, repeatInterval: "1 day", disabled: random() < 0.2 };
        case "config_trees":
            return { deviceType: "cisco-ios", versions: [{ name: "v1", root: { children: [], config: "" } }] };
        case "config_parsers":
            return { template: "interface {{ name }}", rules: [{ match: "^interface", type: "block" }] };
        case "adapters":
            return { type: "NSO", properties: { id: o.name, host: "10.0.0.1", port: 8080, protocol: "https" } };
        case "repository_configs":
            return { config: { enabled: true, type: "gitlab", hostname: "git.example.net", path: "/prebuilts" } };
        default:
            return { services: ["accounts", "engine"], authenticationProps: { uniqueSession: false } };
    }
}
/** The searches measured: what people type, from one exact name to a word half the catalog holds. */
function makeQueries(catalog) {
    const someWorkflow = catalog.workflows[Math.floor(catalog.workflows.length / 2)];
    return [
        { kind: "exact name", text: someWorkflow?.name ?? "nyc-core-upgrade-00001" },
        { kind: "name fragment", text: "nyc-core" },
        { kind: "name fragment", text: "lon-edge-backup" },
        { kind: "name fragment", text: "sin-dc" },
        { kind: "word (broad)", text: "juniper" },
        { kind: "word (broad)", text: "ospf" },
        { kind: "tag", text: "site:fra" },
        { kind: "tag", text: "team:noc" },
        { kind: "no match", text: "no such object" },
        { kind: "metacharacters", text: ".*(" },
        { kind: "metacharacters", text: "$where" },
    ];
}
//# sourceMappingURL=data.js.map