// Imported first by cli/main.ts: the young generation is fixed before the rest of the binary loads
// (young-generation.ts).
import { fixYoungGeneration } from "./young-generation.js";

fixYoungGeneration();
