import type { Command } from "commander";

/** Registers the `supernode devnet …` commands. (Placeholder: the devnet engineers own this file.) */
export function registerDevnetCommands(_program: Command): void {}
