import { checkUserRegex, escapeRegex } from "../../services/configuration/regex-guard";
import { ConfigParseError, parseBraces, parseIndented } from "../../services/configuration/config-tree";

describe("checkUserRegex", () => {
  it.each(["(a+)+$", "(a*)*b", "(x+x+)+y", "(a|a)*$", "(\\w|\\d)+$", "(.*a){12}"])(
    "refuses catastrophic %s",
    (p) => {
      expect(checkUserRegex(p).ok).toBe(false);
    },
  );
  it("refuses backreferences, lookaround, over-long and invalid patterns", () => {
    expect(checkUserRegex("(a)\\1").ok).toBe(false);
    expect(checkUserRegex("(?=a)").ok).toBe(false);
    expect(checkUserRegex("a".repeat(513)).ok).toBe(false);
    expect(checkUserRegex("[a-").ok).toBe(false);
  });
  it("accepts the patterns lexRules and specs use", () => {
    for (const p of [
      "^interface \\S+",
      "\\d+\\.\\d+\\.\\d+\\.\\d+",
      "ip address [0-9./ ]+",
      "^(permit|deny) ",
    ]) {
      const r = checkUserRegex(p);
      expect(r.ok).toBe(true);
    }
  });
  it("a refused pattern never runs: checking a catastrophic one returns at once", () => {
    const r = checkUserRegex("^(a+)+$");
    expect(r).toEqual({ ok: false, reason: "nested quantifiers are not allowed" });
  });
  it("escapes literal filters", () => {
    expect(new RegExp(escapeRegex("a.b(c)")).test("a.b(c)")).toBe(true);
    expect(new RegExp(escapeRegex("a.b")).test("axb")).toBe(false);
  });
});

describe("parseIndented (IOS style)", () => {
  const ios = [
    "! comment",
    "hostname rtr1",
    "!",
    "banner motd ^C",
    "Authorized access only",
    "interface Gi0/0 here is not config",
    "^C",
    "interface GigabitEthernet0/0",
    " description uplink",
    " ip address 10.0.0.1 255.255.255.0",
    " no shutdown",
    "router bgp 65000",
    " neighbor 10.0.0.2 remote-as 65001",
    " address-family ipv4",
    "  network 10.0.0.0 mask 255.255.255.0",
    "crypto pki certificate chain TP",
    " certificate 01",
    "  3082 0201",
    "  quit",
    "end",
  ].join("\n");
  it("nests by indentation, drops comments and separators, keeps banners and certificates whole", () => {
    const tree = parseIndented(ios);
    expect(tree.map((n) => n.text.split("\n")[0])).toEqual([
      "hostname rtr1",
      "banner motd ^C",
      "interface GigabitEthernet0/0",
      "router bgp 65000",
      "crypto pki certificate chain TP",
      "end",
    ]);
    expect(tree[1].text).toContain("interface Gi0/0 here is not config");
    expect(tree[1].children).toEqual([]);
    expect(tree[2].children.map((c) => c.text)).toEqual([
      "description uplink",
      "ip address 10.0.0.1 255.255.255.0",
      "no shutdown",
    ]);
    expect(tree[3].children[1].children[0].text).toBe("network 10.0.0.0 mask 255.255.255.0");
    expect(tree[4].children[0].text).toBe("certificate 01\n3082 0201\nquit");
    expect(tree[2].line).toBe(8);
  });
});

describe("parseBraces (Junos style)", () => {
  it("nests by braces and strips terminators", () => {
    const tree = parseBraces(
      [
        "system {",
        "    host-name r1;",
        "    /* note */",
        "}",
        "interfaces {",
        "    ge-0/0/0 {",
        "        unit 0 {",
        "            family inet { address 10.0.0.1/24; }",
        "        }",
        "    }",
        "}",
      ].join("\n"),
    );
    expect(tree[0]).toMatchObject({ text: "system", children: [{ text: "host-name r1" }] });
    expect(tree[1].children[0].children[0].text).toBe("unit 0");
  });
  it("rejects unbalanced braces", () => {
    expect(() => parseBraces("system {\n host-name r1;")).toThrow(ConfigParseError);
    expect(() => parseBraces("}")).toThrow(ConfigParseError);
  });
});
