import { join, resolve } from "node:path";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import { buildRemoteSigner } from "./signer-build.js";
import type { P2pConfig } from "./types.js";
import { bool, list, num, type OptionValue, str } from "./values.js";

/** What the P2P part of one chain's configuration is built from. */
export interface P2pBuildInput {
  readonly key: string;
  readonly opts: Record<string, OptionValue | undefined>;
  readonly flag: (name: string) => string;
  readonly issues: ConfigIssue[];
  readonly warnings: ConfigWarning[];
  /** `<data-dir>/chain-<id>/p2p`: the default home of the key, peer store and discovery table. */
  readonly p2pDir: string;
  /** `--p2p.disable` (supernode-wide). */
  readonly disableP2p: boolean;
}

function checkP2pOptions({ key, opts, flag, issues }: P2pBuildInput): void {
  const lo = num(opts["p2p.peers.lo"]);
  const hi = num(opts["p2p.peers.hi"]);
  if (lo === 0 || hi === 0 || lo > hi)
    issues.push({
      option: flag("p2p.peers.lo"),
      chain: key,
      message: `invalid peer limits lo=${lo} hi=${hi} (need 0 < lo <= hi)`,
    });
  for (const m of ["p2p.gossip.mesh.d", "p2p.gossip.mesh.lo", "p2p.gossip.mesh.dhi", "p2p.gossip.mesh.dlazy"]) {
    const v = num(opts[m]);
    if (v < 1 || v > 1000) issues.push({ option: flag(m), chain: key, message: `must be within 1..1000 (got ${v})` });
  }
  const seqKey = str(opts["p2p.sequencer.key"]);
  if (seqKey !== "" && !/^(0x)?[0-9a-fA-F]{64}$/.test(seqKey.trim()))
    issues.push({ option: flag("p2p.sequencer.key"), chain: key, message: "must be a 32-byte hex private key" });
  if (seqKey !== "" && str(opts["signer.endpoint"]) !== "")
    issues.push({ option: flag("p2p.sequencer.key"), chain: key, message: "cannot be combined with signer.endpoint" });
}

/** One chain's P2P configuration; problems go to `input.issues`. */
export function buildP2pConfig(input: P2pBuildInput): P2pConfig {
  checkP2pOptions(input);
  const { key, opts, flag, issues, warnings, p2pDir } = input;
  const seqKey = str(opts["p2p.sequencer.key"]);
  const p2pDisabled = input.disableP2p || bool(opts["p2p.disable"]);
  const remoteSigner = buildRemoteSigner({ key, opts, flag, issues, warnings, p2pDisabled });
  const privRaw = str(opts["p2p.priv.raw"]);
  const advertiseIp = str(opts["p2p.advertise.ip"]);
  const store = (n: string, file: string): string => (str(opts[n]) === "memory" ? "memory" : join(p2pDir, file));
  return {
    disabled: p2pDisabled,
    noDiscovery: bool(opts["p2p.no-discovery"]),
    scoring: str(opts["p2p.scoring"], "light") === "none" ? "none" : "light",
    banPeers: bool(opts["p2p.ban.peers"]),
    banThreshold: num(opts["p2p.ban.threshold"]),
    banDurationMs: num(opts["p2p.ban.duration"]),
    privPath: str(opts["p2p.priv.path"]) === "" ? join(p2pDir, "p2p_priv.txt") : resolve(str(opts["p2p.priv.path"])),
    ...(privRaw !== "" ? { privRaw } : {}),
    listenIp: str(opts["p2p.listen.ip"], "0.0.0.0"),
    listenTcp: num(opts["p2p.listen.tcp"]),
    listenUdp: num(opts["p2p.listen.udp"]),
    ...(advertiseIp !== "" ? { advertiseIp } : {}),
    advertiseTcp: num(opts["p2p.advertise.tcp"]),
    advertiseUdp: num(opts["p2p.advertise.udp"]),
    bootnodes: list(opts["p2p.bootnodes"]),
    static: list(opts["p2p.static"]),
    netrestrict: list(opts["p2p.netrestrict"]),
    peersLo: num(opts["p2p.peers.lo"]),
    peersHi: num(opts["p2p.peers.hi"]),
    peersGraceMs: num(opts["p2p.peers.grace"]),
    nat: bool(opts["p2p.nat"]),
    userAgent: str(opts["p2p.useragent"], "supernode"),
    timeoutDialMs: num(opts["p2p.timeout.dial"]),
    peerstorePath: store("p2p.peerstore.path", "peerstore.json"),
    discoveryPath: store("p2p.discovery.path", "discovery.json"),
    ...(seqKey !== "" ? { sequencerKey: seqKey.trim() } : {}),
    ...(remoteSigner !== undefined ? { remoteSigner } : {}),
    gossip: {
      meshD: num(opts["p2p.gossip.mesh.d"]),
      meshDlo: num(opts["p2p.gossip.mesh.lo"]),
      meshDhi: num(opts["p2p.gossip.mesh.dhi"]),
      meshDlazy: num(opts["p2p.gossip.mesh.dlazy"]),
      floodPublish: bool(opts["p2p.gossip.mesh.floodpublish"]),
      timestampThresholdMs: num(opts["p2p.gossip.timestamp.threshold"]),
    },
    syncReqResp: bool(opts["p2p.sync.req-resp"]),
    syncOnlyReqToStatic: bool(opts["p2p.sync.onlyreqtostatic"]),
    ping: bool(opts["p2p.ping"]),
  };
}
