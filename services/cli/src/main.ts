#!/usr/bin/env node
import { parseArgs } from "node:util";
import { ConfigError, DataDirLockedError, createLogger, loadConfig, type Config, type Logger } from "@tidings/core";
import { roles, serve, type Role } from "./commands/serve.js";
import { migrateCommand } from "./commands/migrate.js";
import { projectionsRebuild, projectionsStatus } from "./commands/projections.js";
import { auditStream } from "./commands/audit.js";
import { auditExport } from "./commands/auditExport.js";
import { auditPublicKey, auditSeal } from "./commands/auditSeal.js";
import { auditVerify, auditVerifyFile } from "./commands/auditVerify.js";
import { consoleOutput, type CliOutput } from "./cliOutput.js";
import { openRuntime, type Runtime } from "./runtime.js";
import { sealKeys } from "@tidings/eventstore";
import { status } from "./commands/status.js";
import { keysCreate } from "./commands/keys.js";
import { teamsSetBroadcastRate, teamsSetRateLimit } from "./commands/teams.js";
import { UsageError } from "./usageError.js";

const usage = `Usage: tidings <command>

  serve [--role api|projector|sagas|all]   run the service (default role: all)
  migrate                                  create or update every schema
  status [--json]                          projections' lag and sagas' dead letters
  projections status [--json]              checkpoint, lag and state of each projection
  projections rebuild <name>               rebuild one projection from the first event
  audit stream <stream> [--json]           print a stream's events with their metadata
  audit verify [--stream S | --from POSITION] [--public-key HEX] [--json]
                                           check every event's hash and every seal; exit 1 at the first break
  audit verify --file FILE [--public-key HEX] [--json]
                                           check an export offline, without the store
  audit seal                               append a signed seal over the store's hashes now
  audit public-key                         print the public key seals are checked with
  audit export [--from POSITION] [--until TIME] [--category C,…] [--type T,…] [--out FILE]
                                           write events in commit order as JSON lines with their hashes
  keys create --team <name> [--permission full_access|sending_access] [--name <key name>]
                                           create a team's API key and print its token
  teams set-rate-limit <team> <n>          set a team's API requests per second (default 10)
  teams set-broadcast-rate <team> <n>      set a team's broadcast emails per second (or "default")

Settings come from the environment; see README.md.`;

interface Invocation {
  config: Config;
  logger: Logger;
  /** Positionals after the command words. */
  args: string[];
  options: { role: string; json: boolean; team?: string; permission?: string; name?: string } & AuditFlags;
}

interface AuditFlags {
  stream?: string;
  from?: string;
  until?: string;
  category?: string;
  type?: string;
  out?: string;
  file?: string;
  "public-key"?: string;
}

/** Command words → handler. Each command file exports its handler; this table is the whole CLI. */
const commands: Record<string, (i: Invocation) => Promise<void>> = {
  serve: ({ config, logger, options }) => serveUntilSignal(config, logger, options.role),
  migrate: ({ config, logger }) => migrateCommand(config, logger),
  status: ({ config, logger, options }) => status(config, logger, options.json),
  "projections status": ({ config, logger, options }) => projectionsStatus(config, logger, options.json),
  "projections rebuild": ({ config, logger, args }) => projectionsRebuild(config, logger, required(args[0], "a projection name")),
  "audit stream": ({ config, logger, args, options }) => auditStream(config, logger, required(args[0], "a stream id"), options.json),
  "audit verify": ({ config, logger, options }) => {
    const publicKey = options["public-key"];
    if (options.file !== undefined) {
      const key = publicKey ?? (config.TIDINGS_SECRET ? sealKeys(config.TIDINGS_SECRET).publicKey : undefined);
      return exitWith(auditVerifyFile(options.file, { ...(key && { publicKey: key }), json: options.json }, consoleOutput));
    }
    return withRuntime(config, logger, (runtime, output) =>
      auditVerify(
        runtime.store,
        { stream: options.stream, from: options.from, publicKey: publicKey ?? sealKeys(runtime.secret).publicKey, json: options.json },
        output,
      ),
    );
  },
  "audit seal": ({ config, logger }) => withRuntime(config, logger, (runtime, output) => auditSeal(runtime.store, runtime.secret, output)),
  "audit public-key": ({ config, logger }) =>
    withRuntime(config, logger, async (runtime, output) => auditPublicKey(runtime.secret, output)),
  "audit export": ({ config, logger, options }) =>
    withRuntime(config, logger, (runtime, output) =>
      auditExport(
        runtime.store,
        { from: options.from, until: options.until, category: list(options.category), type: list(options.type), out: options.out },
        output,
      ),
    ),
  "keys create": ({ config, logger, options }) => keysCreate(config, logger, options),
  "teams set-broadcast-rate": ({ config, logger, args }) =>
    teamsSetBroadcastRate(
      config,
      logger,
      required(args[0], "a team name or id"),
      required(args[1], "a number of emails per second or `default`"),
    ),
  "teams set-rate-limit": ({ config, logger, args }) =>
    teamsSetRateLimit(config, logger, required(args[0], "a team name or id"), required(args[1], "a number of requests per second")),
};

/** Runs a command on an open runtime, writing to the console, and exits with the code it returns. */
async function withRuntime(
  config: Config,
  logger: Logger,
  command: (runtime: Runtime, output: CliOutput) => Promise<number>,
): Promise<void> {
  const runtime = await openRuntime(config, logger);
  try {
    process.exitCode = await command(runtime, consoleOutput);
  } finally {
    await runtime.close();
  }
}

async function exitWith(code: Promise<number>): Promise<void> {
  process.exitCode = await code;
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean);
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`this command needs ${what}`);
  return value;
}

async function serveUntilSignal(config: Config, logger: Logger, role: string): Promise<void> {
  if (!roles.includes(role as Role)) throw new UsageError(`--role must be one of ${roles.join(", ")}`);
  const serving = await serve(config, logger, role as Role);
  if (serving.url) console.log(`Tidings is serving ${serving.url} (${config.mode} mode, role ${role})`);
  else console.log(`Tidings is running (${config.mode} mode, role ${role})`);
  if (serving.inboundSmtp) console.log(`Receiving mail over SMTP on ${serving.inboundSmtp.host}:${serving.inboundSmtp.port}`);
  if (serving.bootstrapToken) {
    console.log(`First API key (shown once, keep it): ${serving.bootstrapToken}`);
    console.log(`Try: curl -H "Authorization: Bearer ${serving.bootstrapToken}" ${serving.url}/api-keys`);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "draining and stopping");
    // What is left under way when time runs out is what a crash would leave: each message not acked is
    // delivered again, and every effect is keyed, so the next process finds what was recorded and redoes
    // only the rest (an SMTP send cut before its outcome was recorded goes again, with the same Message-ID).
    setTimeout(() => {
      logger.warn(
        { timeoutMs: config.SHUTDOWN_TIMEOUT_MS, unfinished: serving.unfinished() },
        "stop ran out of time; exiting with work under way",
      );
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS).unref();
    serving.stop().then(() => process.exit(0), fail);
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

/** Expected failures end with one line on stderr; anything else is a bug and keeps its stack. */
function fail(error: unknown): never {
  // Node's parseArgs reports a mistyped option with a code, not a class of its own.
  const badArguments = String((error as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS");
  if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof UsageError || badArguments) {
    process.stderr.write(`tidings: ${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`tidings: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: "string", default: "all" },
      json: { type: "boolean", default: false },
      team: { type: "string" },
      permission: { type: "string" },
      name: { type: "string" },
      stream: { type: "string" },
      from: { type: "string" },
      until: { type: "string" },
      category: { type: "string" },
      type: { type: "string" },
      out: { type: "string" },
      file: { type: "string" },
      "public-key": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(usage);
    return;
  }
  const words = [positionals.slice(0, 2).join(" "), positionals[0]!];
  const key = words.find((w) => w in commands);
  if (!key) throw new UsageError(`unknown command "${positionals.join(" ")}"; run tidings --help`);
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const { role, json, team, permission, name, ...audit } = values;
  await commands[key]!({
    config,
    logger,
    args: positionals.slice(key.split(" ").length),
    options: { role: role!, json: json!, team, permission, name, ...audit },
  });
}

main(process.argv.slice(2)).catch(fail);
