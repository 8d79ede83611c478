export { createTimers, type DueTimer, type Timers } from "./timers.js";
export { startTimerPoller, type TimerPoller, type TimerPollerOptions } from "./poller.js";
export { timerMigrations } from "./migrations.js";
