import { escapeRegex } from "../../shared/text";
import { regexProblem, userRegex } from "../../shared/user-regex";
import { ConfigParseError, parseBraces, parseIndented } from "../../services/configuration/config-tree";

describe("user regexes run on RE2 (shared/user-regex.ts)", () => {
  it.each([
    ["(a+)+$", false],
    ["(a*)*b", false],
    ["(x+x+)+y", false],
    ["(a|a)*$", true],
    ["(\\w|\\d)+$", false],
    ["(.*a){12}", true],
    ["((a+))+$", false],
  ])(
    "accepts %s, exponential on a backtracking engine, and answers 10,000 characters of near-miss",
    (p, matches) => {
      expect(userRegex(p, "f").test(`${"a".repeat(10_000)}!`)).toBe(matches);
    },
  );
  it.each([
    ["(a)\\1", "backreferences are not supported"],
    ["(?<n>a)\\k<n>", "backreferences are not supported"],
    ["(?=a)", "lookaround groups are not supported"],
    ["(?<!a)b", "lookaround groups are not supported"],
    ["a".repeat(513), "longer than 512"],
    ["[a-", "invalid pattern (RE2 syntax)"],
    ["[a-z]{1000}", "more than 256"],
  ])("refuses %s naming the field", (p, reason) => {
    expect(regexProblem(p)).toContain(reason);
    expect(() => userRegex(p, "lexRules[0][0]")).toThrow(expect.objectContaining({ code: 400 }));
    try {
      userRegex(p, "lexRules[0][0]");
    } catch (err) {
      expect((err as { data: { field: string }[] }).data[0].field).toBe("lexRules[0][0]");
    }
  });
  it("accepts the patterns lexRules and specs use, with the flags i, m, s only", () => {
    for (const p of [
      "^interface \\S+",
      "\\d+\\.\\d+\\.\\d+\\.\\d+",
      "ip address [0-9./ ]+",
      "^(permit|deny) ",
      "(?i)gi",
    ])
      expect(regexProblem(p)).toBeUndefined();
    expect(userRegex("^GI", "f", "i").test("gi0/0")).toBe(true);
    expect(userRegex("^b$", "f", "m").test("a\nb")).toBe(true);
    expect(regexProblem("a", "x")).toContain("the only flags are i, m, s");
  });
  it("escapes literal filters", () => {
    expect(userRegex(escapeRegex("a.b(c)"), "f").test("a.b(c)")).toBe(true);
    expect(userRegex(escapeRegex("a.b"), "f").test("axb")).toBe(false);
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
