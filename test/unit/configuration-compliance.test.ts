/**
 * The compliance engine on realistic configs (test/fixtures/configuration): an IOS edge router and a
 * Junos switch against golden specs in the text form. A compliant device passes; each kind of
 * violation is reported with its severity, totals and remediation lines.
 */
import fs from "node:fs";
import path from "node:path";
import { compileSpec } from "../../services/configuration/compile-spec";
import { checkText } from "../../services/configuration/evaluation";
import { effectiveOf, type NodeLike } from "../../services/configuration/inherit";
import { configReader } from "../../services/configuration/parsers";
import { parseSpecText, specToText } from "../../services/configuration/spec-text";

const FIXTURES = path.join(__dirname, "../fixtures/configuration");
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

const IOS = read("ios-edge-rtr1.cfg");
const JUNOS = read("junos-core-sw1.conf");
const ios = configReader("indent");
const junos = configReader("braces");

/** The edge node's effective spec: base, then base/dc1, then base/dc1/edge, each with its variables. */
function iosSpec(variables: Record<string, string> = {}, extra = "") {
  const chain: NodeLike[] = [
    { path: "base", spec: parseSpecText(read("ios-base.spec")), variables: {} },
    {
      path: "base/dc1",
      spec: parseSpecText(read("ios-dc1.spec")),
      variables: { site: "dc1", ntp1: "10.10.1.10", ntp2: "10.10.1.11" },
    },
    {
      path: "base/dc1/edge",
      spec: parseSpecText(read("ios-dc1-edge.spec") + "\n" + extra),
      variables: { asn: "65000", ...variables },
    },
  ];
  const effective = effectiveOf(chain);
  return compileSpec(effective.spec, effective.variables);
}

const checkIos = (config: string, variables?: Record<string, string>, extra?: string) =>
  checkText(ios, iosSpec(variables, extra), config);

describe("spec text form", () => {
  test("markers, nesting, variables and inline regex become JSON lines, and back", () => {
    const spec = parseSpecText(
      [
        "<e/>hostname {{ hostname }}",
        "{o/}ip access-list extended X",
        " <i/>{d/}permit ip any any",
        " {i/}remark {/.*/}",
        "snmp-server location {{ site }}-{/row\\d+/}",
      ].join("\n"),
    );
    expect(spec[0]).toEqual({
      words: [[{ type: "literal", value: "hostname" }], [{ type: "variable", value: "hostname" }]],
      evalMode: "required",
      severity: "error",
      children: [],
    });
    expect(spec[1]).toMatchObject({ strictOrder: true, severity: "warning" });
    expect(spec[1].children[0]).toMatchObject({ evalMode: "disallowed", severity: "info" });
    expect(spec[1].children[1]).toMatchObject({ evalMode: "ignored" });
    expect(spec[2].words[2]).toEqual([
      { type: "variable", value: "site" },
      { type: "literal", value: "-" },
      { type: "regex", value: "row\\d+" },
    ]);
    expect(parseSpecText(specToText(spec))).toEqual(spec);
  });

  test("a regex RE2 cannot run or a marker without a line is refused, naming the field", () => {
    expect(() => parseSpecText("logging host {/(a)\\1/}")).toThrow(/backreferences are not supported/);
    expect(() => parseSpecText("logging host {/(?!b)a/}")).toThrow(/lookaround groups are not supported/);
    // A nested quantifier is linear on RE2: accepted.
    expect(parseSpecText("logging host {/(a+)+/}")).toHaveLength(1);
    expect(() => parseSpecText("<e/>")).toThrow(/marker without a config line/);
  });
});

describe("IOS edge router", () => {
  test("a compliant device passes: no issue, score 100, no remediation", () => {
    const result = checkIos(IOS);
    expect(result.issues).toEqual([]);
    expect(result).toMatchObject({ compliant: true, score: 100, remediation: "" });
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0, infos: 0 });
    expect(result.totals.passes).toBeGreaterThan(20);
  });

  test("a missing required line is a warning, fixed by adding it", () => {
    const result = checkIos(IOS.replace("aaa new-model\n", ""));
    expect(result.issues).toEqual([
      {
        kind: "missing",
        severity: "warning",
        specLine: "aaa new-model",
        path: [],
        expected: "aaa new-model",
      },
    ]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 1, infos: 0 });
    expect(result.compliant).toBe(false);
    expect(result.remediation).toBe("aaa new-model");
  });

  test("a disallowed line present is an error, fixed by its `no` form", () => {
    const result = checkIos(IOS.replace("no ip http server", "ip http server"));
    expect(result.issues).toEqual([
      expect.objectContaining({ kind: "disallowed", severity: "error", found: "ip http server", path: [] }),
    ]);
    expect(result.totals.errors).toBe(1);
    expect(result.remediation).toBe("no ip http server");
  });

  test("a regex word that does not match is a mismatch naming what was found", () => {
    const config = IOS.replace(
      "logging host 10.10.1.50\nlogging host 10.10.1.51\n",
      "logging host 192.168.7.7\n",
    );
    const result = checkIos(config);
    expect(result.issues).toEqual([
      expect.objectContaining({
        kind: "mismatch",
        severity: "warning",
        specLine: "logging host {/10\\.10\\.1\\.\\d+/}",
        found: "logging host 192.168.7.7",
      }),
    ]);
    expect(result.remediation).toBe("logging host <10\\.10\\.1\\.\\d+>");
  });

  test("a line at the wrong nesting is reported misplaced and added under its parent", () => {
    const config = IOS.replace(" transport input ssh\n", "").replace("end\n", "transport input ssh\nend\n");
    const result = checkIos(config);
    expect(result.issues).toEqual([
      expect.objectContaining({
        kind: "misplaced",
        severity: "error",
        path: ["line vty 0 4"],
        found: "transport input ssh",
      }),
    ]);
    expect(result.remediation).toBe("line vty 0 4\n transport input ssh");
  });

  test("a strict-order block out of order is one issue, fixed by rewriting the block", () => {
    const config = IOS.replace(
      " permit tcp 10.10.0.0 0.0.255.255 any eq 22\n permit udp 10.10.0.0 0.0.255.255 any eq snmp\n",
      " permit udp 10.10.0.0 0.0.255.255 any eq snmp\n permit tcp 10.10.0.0 0.0.255.255 any eq 22\n",
    );
    const result = checkIos(config);
    expect(result.issues).toEqual([
      expect.objectContaining({
        kind: "order",
        severity: "warning",
        specLine: "ip access-list extended MGMT-IN",
      }),
    ]);
    expect(result.remediation.split("\n")).toEqual([
      "no ip access-list extended MGMT-IN",
      "ip access-list extended MGMT-IN",
      " permit tcp 10.10.0.0 0.0.255.255 any eq 22",
      " permit udp 10.10.0.0 0.0.255.255 any eq snmp",
      " deny ip any any log",
      " permit icmp any any",
    ]);
  });

  test("children are checked under every line a regex parent matches", () => {
    const config = IOS.replace(
      "interface GigabitEthernet0/0/1\n description uplink-1\n ip address 10.0.1.1 255.255.255.252\n ip ospf network point-to-point\n no shutdown",
      "interface GigabitEthernet0/0/1\n description uplink-1\n ip address 10.0.1.1 255.255.255.252\n shutdown",
    );
    const result = checkIos(config);
    expect(result.issues.map((i) => [i.kind, i.path, i.found ?? i.expected])).toEqual([
      ["missing", ["interface GigabitEthernet0/0/1"], "ip ospf network point-to-point"],
      ["disallowed", ["interface GigabitEthernet0/0/1"], "shutdown"],
    ]);
    expect(result.remediation).toBe(
      "interface GigabitEthernet0/0/1\n ip ospf network point-to-point\n no shutdown",
    );
  });

  test("an inherited parent spec applies to the child node (base and base/dc1 lines on an edge device)", () => {
    const result = checkIos(
      IOS.replace("ntp server 10.10.1.11\n", "").replace("service password-encryption\n", ""),
    );
    expect(result.issues.map((i) => [i.kind, i.severity, i.specLine])).toEqual([
      ["missing", "error", "service password-encryption"], // from base
      ["mismatch", "warning", "ntp server {{ ntp2 }}"], // from base/dc1, its variable filled
    ]);
    expect(result.totals).toMatchObject({ errors: 1, warnings: 1 });
    expect(result.remediation).toBe("service password-encryption\nntp server 10.10.1.11");
  });

  test("a child node overrides an inherited line: the same line marked ignored is not checked", () => {
    const result = checkIos(IOS.replace("aaa new-model\n", ""), {}, "{i/}aaa new-model");
    expect(result.issues).toEqual([]);
  });

  test("an unset variable matches any value; when the line is missing the issue names it", () => {
    expect(checkIos(IOS).issues).toEqual([]); // hostname unset: edge-rtr1 passes
    const result = checkIos(IOS.replace("hostname edge-rtr1\n", ""));
    expect(result.issues).toEqual([
      {
        kind: "missing",
        severity: "error",
        specLine: "hostname {{ hostname }}",
        path: [],
        expected: "hostname <hostname>",
        unsetVariables: ["hostname"],
      },
    ]);
    expect(result.remediation).toBe("hostname <hostname>");
  });

  test("a set variable with another value on the device is a mismatch with the value to set", () => {
    const result = checkIos(IOS, { hostname: "edge-rtr9" });
    expect(result.issues).toEqual([
      expect.objectContaining({
        kind: "mismatch",
        severity: "error",
        found: "hostname edge-rtr1",
        expected: "hostname edge-rtr9",
      }),
    ]);
    expect(result.remediation).toBe("hostname edge-rtr9");
    expect(result.score).toBeLessThan(100);
  });

  test("a missing block is added with its required children; banner text is never read as config", () => {
    const config = IOS.replace(/router bgp 65000\n( .*\n)+/, "");
    const result = checkIos(config);
    expect(result.issues).toEqual([
      expect.objectContaining({ kind: "missing", specLine: "router bgp {{ asn }}" }),
    ]);
    expect(result.remediation.split("\n")).toEqual([
      "router bgp 65000",
      " bgp log-neighbor-changes",
      " neighbor <\\S+> remote-as <\\d+>",
      " address-family ipv4",
      "  network <\\S+> mask 255.255.255.255",
    ]);
    // The banner holds "interface Loopback99 ...": a spec disallowing it finds nothing.
    expect(checkIos(IOS, {}, "{d/}interface Loopback99 is not a command in a banner").issues).toEqual([]);
  });

  test("an unreadable config is one error", () => {
    const result = checkText(junos, iosSpec(), "system {\n host-name x;\n");
    expect(result).toMatchObject({ compliant: false, score: 0, totals: { errors: 1 } });
    expect(result.issues[0].kind).toBe("unreadable");
  });
});

describe("Junos switch", () => {
  const spec = (hostname?: string) =>
    compileSpec(parseSpecText(read("junos-base.spec")), {
      ntp1: "10.10.1.10",
      ...(hostname && { hostname }),
    });

  test("a compliant device passes", () => {
    const result = checkText(junos, spec("core-sw1"), JUNOS);
    expect(result.issues).toEqual([]);
    expect(result.compliant).toBe(true);
  });

  test("violations are fixed with set and delete commands along the hierarchy", () => {
    const config = JUNOS.replace("            root-login deny;\n", "").replace(
      "        netconf {",
      "        telnet;\n        netconf {",
    );
    const result = checkText(junos, spec("core-sw2"), config);
    expect(result.issues.map((i) => [i.kind, i.severity, i.path.join(" > ")])).toEqual([
      ["mismatch", "error", "system"],
      ["missing", "error", "system > services > ssh"],
      ["disallowed", "error", "system > services"],
    ]);
    expect(result.totals).toMatchObject({ errors: 3, warnings: 0 });
    expect(result.remediation.split("\n")).toEqual([
      "set system host-name core-sw2",
      "set system services ssh root-login deny",
      "delete system services telnet",
    ]);
  });
});
