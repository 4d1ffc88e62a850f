import type { SequencerStateStore } from "../../src/node/ports.js";

/** An in-memory store (tests, or when no data dir is configured). */
export function memorySequencerStateStore(
  initial?: boolean,
): SequencerStateStore & { value: boolean | undefined; sdm: boolean | undefined } {
  const store = {
    value: initial,
    sdm: undefined as boolean | undefined,
    async loadSdmOptIn() {
      return store.sdm;
    },
    async saveSdmOptIn(on: boolean) {
      store.sdm = on;
    },
    async load() {
      return store.value;
    },
    async save(started: boolean) {
      store.value = started;
    },
  };
  return store;
}
