export { openRuntime, type Runtime } from "./runtime.js";
export { serve, roles, type Role, type Serving, type ServeOptions } from "./commands/serve.js";
export { runCommand } from "./main.js";
export { limitHeapGrowth } from "./heapGrowth.js";
export { readAdminAddress, type AdminAddress } from "./adminChannel.js";
export type { CliOutput } from "./cliOutput.js";
export { setTeamRateLimit, type TeamSettingOutcome } from "./commands/teams.js";
