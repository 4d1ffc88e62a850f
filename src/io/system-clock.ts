/** The real clock, for the composition root (runtime code receives a `Clock` by injection). */
export { systemClock, type Clock } from "../core/time/clock.js";
