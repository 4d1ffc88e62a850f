import { H, type OptionSpec, opt, S } from "./option-spec.js";

const G_P2P = "P2P";
const G_SIGNER = "Remote block signer";

/** Per-chain P2P and remote-signer options (part of `CHAIN_OPTIONS`). */
export const P2P_CHAIN_OPTIONS: readonly OptionSpec[] = [
  // P2P
  opt("p2p.disable", "bool", false, "P2P_DISABLE", G_P2P, "Disable P2P for this chain"),
  opt("p2p.no-discovery", "bool", false, "P2P_NO_DISCOVERY", G_P2P, "Disable discv5 peer discovery"),
  opt("p2p.scoring", "enum", "light", "P2P_PEER_SCORING", G_P2P, "Peer scoring: light or none", {
    choices: ["light", "none"],
  }),
  opt("p2p.scoring.peers", "string", "", "P2P_PEER_SCORING_PEERS", G_P2P, "Deprecated fallback of p2p.scoring", {
    hidden: true,
  }),
  opt("p2p.scoring.topics", "string", "", "P2P_PEER_SCORING_TOPICS", G_P2P, "Deprecated, no effect", { hidden: true }),
  opt("p2p.score.bands", "string", "", "P2P_SCORE_BANDS", G_P2P, "Deprecated, no effect", { hidden: true }),
  opt("p2p.ban.peers", "bool", true, "P2P_PEER_BANNING", G_P2P, "Ban peers whose score falls below the threshold"),
  opt("p2p.ban.threshold", "int", -100, "P2P_PEER_BANNING_THRESHOLD", G_P2P, "Ban peers whose score falls below this"),
  opt("p2p.ban.duration", "duration", 1 * H, "P2P_PEER_BANNING_DURATION", G_P2P, "Ban duration"),
  opt(
    "p2p.priv.path",
    "path",
    "",
    "P2P_PRIV_PATH",
    G_P2P,
    "Peer key file (hex; created when missing; default <data-dir>/chain-<id>/p2p/p2p_priv.txt)",
  ),
  opt("p2p.priv.raw", "string", "", "P2P_PRIV_RAW", G_P2P, "Hex peer key (takes priority over the key file)", {
    hidden: true,
  }),
  opt("p2p.listen.ip", "string", "0.0.0.0", "P2P_LISTEN_IP", G_P2P, "Bind IP of TCP and discovery UDP"),
  opt(
    "p2p.listen.tcp",
    "port",
    0,
    "P2P_LISTEN_TCP_PORT",
    G_P2P,
    "TCP port (0 = ephemeral); non-zero only per chain and unique across chains",
  ),
  opt(
    "p2p.listen.udp",
    "port",
    0,
    "P2P_LISTEN_UDP_PORT",
    G_P2P,
    "Discovery UDP port (0 = ephemeral); non-zero only per chain and unique across chains",
  ),
  opt("p2p.advertise.ip", "string", "", "P2P_ADVERTISE_IP", G_P2P, "IP or host name to advertise in the ENR"),
  opt("p2p.advertise.tcp", "port", 0, "P2P_ADVERTISE_TCP", G_P2P, "TCP port to advertise (0 = the bound port)"),
  opt("p2p.advertise.udp", "port", 0, "P2P_ADVERTISE_UDP", G_P2P, "UDP port to advertise (0 = the bound port)"),
  opt(
    "p2p.bootnodes",
    "list",
    [],
    "P2P_BOOTNODES",
    G_P2P,
    "Bootnode ENRs / enodes (comma list; empty = built-in list)",
  ),
  opt("p2p.static", "list", [], "P2P_STATIC", G_P2P, "Static peers as multiaddrs (comma list)"),
  opt("p2p.netrestrict", "list", [], "P2P_NETRESTRICT", G_P2P, "Restrict discovery to these CIDRs (comma list)"),
  opt("p2p.mux", "list", ["yamux", "mplex"], "P2P_MUX", G_P2P, "Stream multiplexers", { hidden: true }),
  opt("p2p.security", "list", ["noise"], "P2P_SECURITY", G_P2P, "Transport security", { hidden: true }),
  opt("p2p.peers.lo", "uint", 20, "P2P_PEERS_LO", G_P2P, "Low tide of the connection manager"),
  opt("p2p.peers.hi", "uint", 30, "P2P_PEERS_HI", G_P2P, "High tide of the connection manager"),
  opt("p2p.peers.grace", "duration", 30 * S, "P2P_PEERS_GRACE", G_P2P, "Grace period of new connections"),
  opt("p2p.nat", "bool", false, "P2P_NAT", G_P2P, "Try NAT port mapping"),
  opt("p2p.useragent", "string", "supernode", "P2P_AGENT", G_P2P, "Identify agent version", { hidden: true }),
  opt("p2p.timeout.negotiation", "duration", 10 * S, "P2P_TIMEOUT_NEGOTIATION", G_P2P, "Negotiation timeout", {
    hidden: true,
  }),
  opt("p2p.timeout.accept", "duration", 10 * S, "P2P_TIMEOUT_ACCEPT", G_P2P, "Accept timeout", { hidden: true }),
  opt("p2p.timeout.dial", "duration", 10 * S, "P2P_TIMEOUT_DIAL", G_P2P, "Dial timeout", { hidden: true }),
  opt(
    "p2p.peerstore.path",
    "path",
    "",
    "P2P_PEERSTORE_PATH",
    G_P2P,
    "Ignored unless `memory`: the peerstore lives in <data-dir>/chain-<id>/p2p",
  ),
  opt(
    "p2p.discovery.path",
    "path",
    "",
    "P2P_DISCOVERY_PATH",
    G_P2P,
    "Ignored unless `memory`: the discovery DB lives in <data-dir>/chain-<id>/p2p",
  ),
  opt("p2p.sequencer.key", "string", "", "P2P_SEQUENCER_KEY", G_P2P, "Hex secp256k1 key signing gossiped blocks"),
  opt("p2p.gossip.mesh.d", "uint", 8, "P2P_GOSSIP_MESH_D", G_P2P, "Gossip mesh D (1..1000)", { hidden: true }),
  opt("p2p.gossip.mesh.lo", "uint", 6, "P2P_GOSSIP_MESH_DLO", G_P2P, "Gossip mesh D low (1..1000)", { hidden: true }),
  opt("p2p.gossip.mesh.dhi", "uint", 12, "P2P_GOSSIP_MESH_DHI", G_P2P, "Gossip mesh D high (1..1000)", {
    hidden: true,
  }),
  opt("p2p.gossip.mesh.dlazy", "uint", 6, "P2P_GOSSIP_MESH_DLAZY", G_P2P, "Gossip mesh D lazy (1..1000)", {
    hidden: true,
  }),
  opt("p2p.gossip.mesh.floodpublish", "bool", false, "P2P_GOSSIP_FLOOD_PUBLISH", G_P2P, "Flood-publish own messages", {
    hidden: true,
  }),
  opt(
    "p2p.gossip.timestamp.threshold",
    "duration",
    60 * S,
    "P2P_GOSSIP_TIMESTAMP_THRESHOLD",
    G_P2P,
    "Maximum age of gossiped payloads",
  ),
  opt("p2p.sync.req-resp", "bool", true, "P2P_SYNC_REQ_RESP", G_P2P, "Serve and request payloads by number"),
  opt(
    "p2p.sync.onlyreqtostatic",
    "bool",
    false,
    "P2P_SYNC_ONLYREQTOSTATIC",
    G_P2P,
    "Send sync requests only to static peers",
  ),
  opt("p2p.ping", "bool", true, "P2P_PING", G_P2P, "Ping peers in the background", { hidden: true }),
  // Remote signer
  opt("signer.endpoint", "string", "", "SIGNER_ENDPOINT", G_SIGNER, "Remote signer endpoint for gossiped blocks"),
  opt("signer.address", "string", "", "SIGNER_ADDRESS", G_SIGNER, "Address the remote signer signs with"),
  opt("signer.header", "list", [], "SIGNER_HEADER", G_SIGNER, "Headers for the remote signer (k=v, repeatable)"),
  opt("signer.tls.enabled", "bool", true, "SIGNER_TLS_ENABLED", G_SIGNER, "Use TLS towards the remote signer"),
  opt("signer.tls.ca", "path", "tls/ca.crt", "SIGNER_TLS_CA", G_SIGNER, "TLS CA certificate"),
  opt("signer.tls.cert", "path", "tls/tls.crt", "SIGNER_TLS_CERT", G_SIGNER, "TLS client certificate"),
  opt("signer.tls.key", "path", "tls/tls.key", "SIGNER_TLS_KEY", G_SIGNER, "TLS client key"),
];
