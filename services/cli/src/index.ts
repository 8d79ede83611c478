export { openRuntime, type Runtime } from "./runtime.js";
export { serve, roles, type Role, type Serving } from "./commands/serve.js";
export { setTeamRateLimit, type TeamSettingOutcome } from "./commands/teams.js";
