/**
 * Every OP fork from Regolith to Jovian active at L2 genesis: the rollup-config fields tests spread into a config
 * whose chain starts on the newest rules (the simulated EL and derivation then use the latest Engine API versions).
 */
export const EVERY_FORK_AT_GENESIS = {
  regolith_time: 0,
  canyon_time: 0,
  delta_time: 0,
  ecotone_time: 0,
  fjord_time: 0,
  granite_time: 0,
  holocene_time: 0,
  isthmus_time: 0,
  jovian_time: 0,
} as const;
