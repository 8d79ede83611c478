#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConfigError, DataDirLockedError, createLogger, loadConfig, type Config, type Logger } from "@tidings/core";
import { consoleOutput, type CliOutput } from "./cliOutput.js";
import { forwardToServing } from "./forwardCommand.js";
import { armExitDeadline, signalArrival } from "./exitDeadline.js";
import type { Runtime } from "./runtime.js";
import type { Role } from "./commands/serve.js";
import { UsageError } from "./usageError.js";
import { limitHeapGrowth } from "./heapGrowth.js";

const usage = `Usage: tidings <command>

  serve [--role api|projector|sagas|all]   run the service (default role: all)
  migrate                                  create or update every schema
  migrate --from <base URL> --key <API key> plan | apply | status [--team <name>] [--rate <n>] [--json]
                                           copy a Resend account (or another Tidings) into a team: plan shows what
                                           and which DNS records change, apply copies (resumable), status its progress
  status [--json]                          projections' lag and sagas' dead letters
  doctor [--json]                          check settings, secret, PostgreSQL, NATS, the SMTP relay, clock, lag,
                                           dead letters, domains' DNS, the latest events' hashes, sending pauses
                                           and disk;
                                           exit 1 naming what failed and what to do
  deadletters list [--json]                messages the sagas gave up on, with their ids
  deadletters show <id> [--json]           one dead letter: its consumer, event, deliveries and error
  deadletters retry <id> | --all           deliver again to the sagas (each effect still happens once), recorded as an event
  deadletters drop <id>                    remove a dead letter without delivering it, recorded as an event
  projections status [--json]              checkpoint, lag, last rebuild and verify of each projection
  projections rebuild <name>… | --all [--json]
                                           rebuild projections from the first event; readers keep the old tables until the switch
  projections verify <name>… | --all [--json]
                                           compare projections with a replay; exit 1 naming the rows that differ
  audit stream <stream> [--json]           print a stream's events with their metadata
  audit find <id | email | request id> [--json]
                                           list the streams and events that name it
  audit state <id | stream> --at <ISO time | revision> [--json]
                                           print the resource as GET showed it then
  audit state <id | stream> --diff <t1> <t2> [--json]
                                           the fields that changed between two times, and by whom
  audit verify [--stream S | --from POSITION] [--public-key HEX] [--json]
                                           check every event's hash and every seal; exit 1 at the first break
  audit verify --file FILE [--public-key HEX] [--json]
                                           check an export offline, without the store
  audit seal                               append a signed seal over the store's hashes now
  audit public-key                         print the public key seals are checked with
  audit export [--from POSITION] [--until TIME] [--category C,…] [--type T,…] [--out FILE]
                                           write events in commit order as JSON lines with their hashes
  erase <address> [--team <name or id>] [--json]
                                           erase a person's data in one team or all: keys shredded, rows scrubbed, files deleted
  keys create --team <name> [--permission full_access|sending_access] [--name <key name>]
                                           create a team's API key and print its token
  teams set-rate-limit <team> <n>          set a team's API requests per second (default 10)
  teams set-broadcast-rate <team> <n>      set a team's broadcast emails per second (or "default")
  reputation list [--json]                 teams and domains whose sending is paused for their bounce or complaint rate
  reputation lift --team <team> [--domain <name>]
                                           lift a team's or a domain's pause, recorded as an event

Every command but serve also runs while an embedded service runs: it is sent to the serving process.
Settings come from the environment; see README.md.`;

const options = {
  role: { type: "string", default: "all" },
  json: { type: "boolean", default: false },
  all: { type: "boolean", default: false },
  team: { type: "string" },
  domain: { type: "string" },
  permission: { type: "string" },
  name: { type: "string" },
  at: { type: "string" },
  diff: { type: "string" },
  stream: { type: "string" },
  from: { type: "string" },
  until: { type: "string" },
  category: { type: "string" },
  type: { type: "string" },
  out: { type: "string" },
  file: { type: "string" },
  "public-key": { type: "string" },
  key: { type: "string" },
  rate: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** What a command is given: open stores (this process's, or the serving process's), its words and options, and where to write. */
interface Invocation {
  runtime: Runtime;
  /** Positionals after the command words. */
  args: string[];
  options: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>["values"];
  out: CliOutput;
}

const deadLetters = () => import("./commands/deadLetters.js");
const projections = () => import("./commands/projections.js");
const teams = () => import("./commands/teams.js");
const reputation = () => import("./commands/reputation.js");

/**
 * Command words → handler, resolving to the exit code. This table is the whole CLI but `serve`: each
 * handler runs the same here or in a serving process (runCommand), so it writes to `out` only and
 * leaves the runtime open. Each imports its command when called: loading them all, `serve` with the
 * whole service among them, cost every call about a CPU-second, `--help` and forwarded commands included.
 */
const commands: Record<string, (i: Invocation) => Promise<number>> = {
  migrate: async ({ runtime, args, options, out }) =>
    options.from === undefined
      ? (await import("./commands/migrate.js")).migrateCommand(runtime, out)
      : (await import("./commands/migrateFrom.js")).migrateFrom(
          runtime,
          { action: args[0], from: options.from, key: options.key, team: options.team, rate: options.rate, json: options.json },
          out,
        ),
  status: async ({ runtime, options, out }) => (await import("./commands/status.js")).status(runtime, options.json, out),
  doctor: async ({ runtime, options, out }) => (await import("./commands/doctor.js")).doctor(runtime.config, runtime, options.json, out),
  "deadletters list": async ({ runtime, options, out }) => (await deadLetters()).deadLettersList(runtime, options.json, out),
  "deadletters show": async ({ runtime, args, options, out }) =>
    (await deadLetters()).deadLettersShow(runtime, required(args[0], "a dead letter's id"), options.json, out),
  "deadletters retry": async ({ runtime, args, options, out }) =>
    (await deadLetters()).deadLettersAct(runtime, "retry", { ref: args[0], all: options.all }, out),
  "deadletters drop": async ({ runtime, args, options, out }) =>
    (await deadLetters()).deadLettersAct(runtime, "drop", { ref: args[0], all: options.all }, out),
  "projections status": async ({ runtime, options, out }) => (await projections()).projectionsStatus(runtime, options.json, out),
  "projections rebuild": async ({ runtime, args, options, out }) =>
    (await projections()).projectionsRebuild(runtime, { names: args, all: options.all, json: options.json }, out),
  "projections verify": async ({ runtime, args, options, out }) =>
    (await projections()).projectionsVerify(runtime, { names: args, all: options.all, json: options.json }, out),
  "audit stream": async ({ runtime, args, options, out }) =>
    (await import("./commands/audit.js")).auditStream(runtime, required(args[0], "a stream id"), options.json, out),
  "audit find": async ({ runtime, args, options, out }) =>
    (await import("./commands/auditFind.js")).auditFind(
      runtime,
      { key: required(args[0], "an id, an email address or a request id"), json: options.json },
      out,
    ),
  "audit state": async ({ runtime, args, options, out }) =>
    (await import("./commands/auditState.js")).auditState(
      runtime,
      {
        target: required(args[0], "a resource id or a stream id"),
        at: options.at,
        diff: options.diff === undefined ? undefined : [options.diff, required(args[1], "a second time after --diff <t1>")],
        json: options.json,
      },
      out,
    ),
  "audit verify": async ({ runtime, options, out }) =>
    options.file !== undefined
      ? verifyFile(options, runtime.secret, out)
      : (await import("./commands/auditVerify.js")).auditVerify(
          runtime.storedEvents,
          {
            stream: options.stream,
            from: options.from,
            publicKey: options["public-key"] ?? (await import("@tidings/eventstore")).sealKeys(runtime.secret).publicKey,
            json: options.json,
          },
          out,
        ),
  "audit seal": async ({ runtime, out }) => (await import("./commands/auditSeal.js")).auditSeal(runtime.storedEvents, runtime.secret, out),
  "audit public-key": async ({ runtime, out }) => (await import("./commands/auditSeal.js")).auditPublicKey(runtime.secret, out),
  "audit export": async ({ runtime, options, out }) =>
    (await import("./commands/auditExport.js")).auditExport(
      runtime.storedEvents,
      { from: options.from, until: options.until, category: list(options.category), type: list(options.type), out: options.out },
      out,
    ),
  erase: async ({ runtime, args, options, out }) =>
    (await import("./commands/erase.js")).erase(
      runtime,
      required(args[0], "an email address"),
      { team: options.team, json: options.json },
      out,
    ),
  "keys create": async ({ runtime, options, out }) => (await import("./commands/keys.js")).keysCreate(runtime, options, out),
  "teams set-broadcast-rate": async ({ runtime, args, out }) =>
    (await teams()).teamsSetBroadcastRate(
      runtime,
      required(args[0], "a team name or id"),
      required(args[1], "a number of emails per second or `default`"),
      out,
    ),
  "reputation list": async ({ runtime, options, out }) => (await reputation()).reputationList(runtime, options.json, out),
  "reputation lift": async ({ runtime, options, out }) =>
    (await reputation()).reputationLift(runtime, { team: options.team, domain: options.domain }, out),
  "teams set-rate-limit": async ({ runtime, args, out }) =>
    (await teams()).teamsSetRateLimit(
      runtime,
      required(args[0], "a team name or id"),
      required(args[1], "a number of requests per second"),
      out,
    ),
};

/** Checking an export needs no store: only the public key, given or derived from the secret at hand. */
async function verifyFile(options: Invocation["options"], secret: string | undefined, out: CliOutput): Promise<number> {
  const { sealKeys } = await import("@tidings/eventstore");
  const publicKey = options["public-key"] ?? (secret ? sealKeys(secret).publicKey : undefined);
  return (await import("./commands/auditVerify.js")).auditVerifyFile(
    options.file!,
    { ...(publicKey && { publicKey }), json: options.json },
    out,
  );
}

function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`this command needs ${what}`);
  return value;
}

type Parsed =
  { kind: "help" } | { kind: "serve"; role: string } | { kind: "command"; key: string; invocation: Omit<Invocation, "runtime" | "out"> };

function parse(argv: string[]): Parsed {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options });
  if (values.help || positionals.length === 0) return { kind: "help" };
  if (positionals[0] === "serve" && positionals.length === 1) return { kind: "serve", role: values.role };
  const words = [positionals.slice(0, 2).join(" "), positionals[0]!];
  const key = words.find((w) => w in commands);
  if (!key) throw new UsageError(`unknown command "${positionals.join(" ")}"; run tidings --help`);
  return { kind: "command", key, invocation: { args: positionals.slice(key.split(" ").length), options: values } };
}

/** Node's parseArgs reports a mistyped option with a code, not a class of its own. */
const isUsageMistake = (error: unknown) =>
  error instanceof UsageError || String((error as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS");

/**
 * Runs a command line on open stores: what this process does with its own, and what a serving process's
 * admin channel does for a CLI elsewhere. A mistake in the call is one line and exit 2; a failure, 1
 * (one line when expected, such as a projection being rebuilt by another; with its stack when a bug).
 */
export async function runCommand(argv: string[], runtime: Runtime, out: CliOutput): Promise<number> {
  try {
    const parsed = parse(argv);
    if (parsed.kind === "help") {
      for (const line of usage.split("\n")) out.out(line);
      return 0;
    }
    if (parsed.kind === "serve") throw new UsageError("serve runs in a process of its own, not inside a serving one");
    return await commands[parsed.key]!({ ...parsed.invocation, runtime, out });
  } catch (error) {
    if (isUsageMistake(error)) {
      out.err(`tidings: ${(error as Error).message}`);
      return 2;
    }
    if (error instanceof (await import("@tidings/projections")).ProjectionUnavailableError) {
      out.err(`tidings: ${error.message}`);
      return 1;
    }
    out.err(`tidings: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}

async function serveUntilSignal(config: Config, logger: Logger, role: string): Promise<void> {
  // A signal that comes while the roles start (the api can answer before the others are up) is kept, and
  // the stop begins once they are: Node's default would end the process there and then.
  const arrival = signalArrival();
  let early: { signal: string; at: number } | undefined;
  let shutdown = (signal: string, at: number) => void (early ??= { signal, at });
  process.on("SIGTERM", () => shutdown("SIGTERM", arrival.earliest()));
  process.on("SIGINT", () => shutdown("SIGINT", arrival.earliest()));
  const { roles, serve } = await import("./commands/serve.js");
  if (!roles.includes(role as Role)) throw new UsageError(`--role must be one of ${roles.join(", ")}`);
  limitHeapGrowth(config.HEAP_GROWTH_PERCENT);
  const serving = await serve(config, logger, role as Role, { commands: runCommand });
  if (serving.url) console.log(`Tidings is serving ${serving.url} (${config.mode} mode, role ${role})`);
  else console.log(`Tidings is running (${config.mode} mode, role ${role})`);
  if (serving.inboundSmtp) console.log(`Receiving mail over SMTP on ${serving.inboundSmtp.host}:${serving.inboundSmtp.port}`);
  if (serving.submissionSmtp) {
    const { host, port, securePort } = serving.submissionSmtp;
    console.log(`Taking SMTP submission on ${host}:${port}${securePort === undefined ? "" : ` and ${host}:${securePort} (implicit TLS)`}`);
  }
  if (serving.bootstrapToken) {
    console.log(`First API key (shown once, keep it): ${serving.bootstrapToken}`);
    console.log(`Try: curl -H "Authorization: Bearer ${serving.bootstrapToken}" ${serving.url}/api-keys`);
  }
  if (serving.url) {
    const key = serving.bootstrapToken ? "the key above" : "a full-access API key (tidings keys create --team <name>)";
    console.log(`Dashboard: ${serving.url}/dashboard (sign in with ${key})`);
  }
  let stopping = false;
  shutdown = (signal: string, at: number) => {
    if (stopping) return;
    stopping = true;
    const left = Math.max(0, at + config.SHUTDOWN_TIMEOUT_MS - Date.now());
    logger.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, leftMs: left }, "draining and stopping");
    // What is left under way when time runs out is what a crash would leave: each message not acked is
    // delivered again, and every effect is keyed, so the next process finds what was recorded and redoes
    // only the rest (an SMTP send cut before its outcome was recorded goes again, with the same Message-ID).
    setTimeout(() => {
      logger.warn(
        { timeoutMs: config.SHUTDOWN_TIMEOUT_MS, unfinished: serving.unfinished() },
        "stop ran out of time; exiting with work under way",
      );
      process.exit(1);
    }, left).unref();
    armExitDeadline(left + 250);
    serving.stop().then(() => process.exit(0), fail);
  };
  if (early) shutdown(early.signal, early.at);
}

/** Expected failures end with one line on stderr; anything else is a bug and keeps its stack. */
function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DataDirLockedError || isUsageMistake(error)) {
    process.stderr.write(`tidings: ${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`tidings: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

/**
 * A command opens the stores itself, or, when an embedded service holds DATA_DIR, is sent to that
 * process, which runs it on its own stores (adminChannel.ts).
 */
async function main(argv: string[]): Promise<void> {
  const parsed = parse(argv);
  if (parsed.kind === "help") {
    console.log(usage);
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (parsed.kind === "serve") return serveUntilSignal(config, logger, parsed.role);
  // An auditor checks an export where there is no store at all: opening one would create an empty DATA_DIR.
  if (parsed.kind === "command" && parsed.key === "audit verify" && parsed.invocation.options.file !== undefined) {
    process.exitCode = await verifyFile(parsed.invocation.options, config.TIDINGS_SECRET, consoleOutput);
    return;
  }
  let runtime: Runtime;
  try {
    runtime = await (await import("./runtime.js")).openRuntime(config, logger);
  } catch (error) {
    // The doctor's job is to say which dependency is down: it checks what it can without the stores.
    if (parsed.kind === "command" && parsed.key === "doctor" && !(error instanceof DataDirLockedError)) {
      process.exitCode = await (
        await import("./commands/doctor.js")
      ).doctor(config, undefined, parsed.invocation.options.json, consoleOutput);
      return;
    }
    if (!(error instanceof DataDirLockedError) || config.mode !== "embedded") throw error;
    process.exitCode = await forwardToServing(config.DATA_DIR, argv, consoleOutput, error);
    return;
  }
  let code: number;
  try {
    code = await runCommand(argv, runtime, consoleOutput);
  } finally {
    await runtime.close();
  }
  // Set after closing: PGlite sets an exit code of its own when it closes.
  process.exitCode = code;
}

const entry = process.argv[1];
if (entry && realpathSync(entry) === fileURLToPath(import.meta.url)) main(process.argv.slice(2)).catch(fail);
