import { randomBytes } from "node:crypto";
import { privateKeyToAddress } from "viem/accounts";
import type { Address, Hex } from "supernode/core";
import type { Devnet } from "../devnet.js";
import { rpcCall } from "../rpc-call.js";

/**
 * P2P of the devnet's supernodes: every host listens on 127.0.0.1 only and runs no discovery (peers are given as
 * static multiaddrs), and the sequencing supernode signs its blocks with a key made for this devnet, whose address
 * is set as each chain's unsafe-block signer in the L1 SystemConfig before any node reads it.
 */
export const DEVNET_P2P_ARGS: readonly string[] = ["--vn.all.p2p.listen.ip", "127.0.0.1", "--vn.all.p2p.no-discovery"];

export interface SequencerP2P {
  /** The block-signing key, handed over in the environment (never in the arguments, which are printed). */
  readonly env: Readonly<Record<string, string>>;
  /** Its address: each chain's unsafe-block signer on L1. */
  readonly signer: Address;
}

/**
 * Makes the devnet's block-signing key and sets its address as the unsafe-block signer of every chain on L1. With
 * `remoteSigner` (the address a remote signer signs with, `signer.*` given by the caller) no key is made: that
 * address becomes the unsafe-block signer.
 */
export async function prepareSequencerP2P(devnet: Devnet, remoteSigner?: Address): Promise<SequencerP2P> {
  const key = remoteSigner === undefined ? (`0x${randomBytes(32).toString("hex")}` as Hex) : undefined;
  const signer = key === undefined ? (remoteSigner as Address) : privateKeyToAddress(key);
  await Promise.all(devnet.chains.map((c) => c.contracts.setUnsafeBlockSigner(signer)));
  return { env: key === undefined ? {} : { SUPERNODE_VN_ALL_P2P_SEQUENCER_KEY: key.slice(2) }, signer };
}

export interface P2PSelf {
  readonly peerID: string;
  readonly addresses: readonly string[];
}

/**
 * `stackp2p_self` of one chain of a supernode, asked until it answers (the supernode may still be starting) or
 * `signal` aborts.
 */
export async function waitForP2PSelf(rpcUrl: string, chainId: bigint, signal: AbortSignal): Promise<P2PSelf> {
  for (;;) {
    try {
      return await rpcCall<P2PSelf>(`${rpcUrl}/${chainId}/`, "stackp2p_self");
    } catch (err) {
      if (signal.aborted) throw new Error(`no stackp2p_self from ${rpcUrl}/${chainId}/: ${String(err)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The loopback TCP multiaddr (with `/p2p/<id>`) a peer on this machine dials. */
export function loopbackAddr(self: P2PSelf): string {
  const a = self.addresses.find((x) => x.startsWith("/ip4/127.0.0.1/tcp/")) ?? self.addresses[0];
  if (a === undefined) throw new Error(`peer ${self.peerID} listens nowhere`);
  return a.includes("/p2p/") ? a : `${a}/p2p/${self.peerID}`;
}
