import type { SequencerStateStore } from "../../src/node/ports.js";

/** An in-memory store (tests, or when no data dir is configured). */
export function memorySequencerStateStore(initial?: boolean): SequencerStateStore & { value: boolean | undefined } {
  const store = {
    value: initial,
    async load() {
      return store.value;
    },
    async save(started: boolean) {
      store.value = started;
    },
  };
  return store;
}
