#!/usr/bin/env node
// `npm test`: type-check (and build, for the child processes that run built code), then at once the unit
// tier and the integration and e2e tiers in embedded mode and in server mode against PostgreSQL and NATS.
// The two modes share nothing (PGlite in temporary directories, against databases and NATS streams of
// their own), and together they keep both cores busy: the embedded tier is CPU-bound on PGlite, the server
// tier mostly waits, an int and an e2e file at a time, then the crash tests one at a time, with the format
// check and the linter beside them (at once, without server mode). Each tier's output is printed whole
// when it ends.
// Prints one closing line "tests: N passed, N failed" summed over every run.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { modeIndependentE2e, modeIndependentInt } from "./modeIndependentFiles.mjs";

const postgresUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
// TIDINGS_TEST_REPORTS keeps each tier's log and JSON report in a folder of one's choosing after the run.
const keptReports = process.env.TIDINGS_TEST_REPORTS;
const reports = keptReports ? (mkdirSync(keptReports, { recursive: true }), keptReports) : mkdtempSync(join(tmpdir(), "tidings-test-"));
const totals = { passed: 0, failed: 0, skipped: 0 };
// Each tier's log is long and a CI page may show only its end, so the failures are named again last.
const failures = [];
// The slowest files of each tier, named last too: where the next minute of `npm test` is to be won.
const slowest = [];
let failedRuns = 0;

/** Runs a command with its output held, and prints it under the label once it ends; resolves with whether it passed. */
function check(label, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (status) => {
      console.log(`\n== ${label} ==`);
      process.stdout.write(Buffer.concat(output));
      if (status !== 0) {
        failedRuns++;
        failures.push(`${label}: failed`);
      }
      resolve(status === 0);
    });
  });
}

/**
 * Runs vitest on the given projects with its output in a file of its own; resolves with the tier's label and
 * log once it ends.
 */
function vitest(label, projects, env) {
  const slug = label.replace(/\W+/g, "-");
  const report = join(reports, `${slug}.json`);
  const log = join(reports, `${slug}.log`);
  const args = [
    "vitest",
    "run",
    ...projects.flatMap((p) => ["--project", p]),
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ];
  const started = Date.now();
  return new Promise((resolve) => {
    const out = createWriteStream(log);
    const child = spawn("npx", args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "1", ...env },
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on("close", (status) => {
      out.end(() => {
        if (status !== 0) failedRuns++;
        try {
          const json = JSON.parse(readFileSync(report, "utf8"));
          totals.passed += json.numPassedTests;
          totals.failed += json.numFailedTests;
          totals.skipped += json.numPendingTests + json.numTodoTests;
          if (json.numTotalTests === 0) failedRuns++;
          failures.push(...failedTests(label, json));
          slowest.push(`${label}: ${slowestFiles(json)}`);
        } catch {
          if (status === 0) failedRuns++;
        }
        resolve({ label: `${label} (${Math.round((Date.now() - started) / 1000)} s)`, log });
      });
    });
  });
}

/** One line per failed test (or file that failed outside any test) of a vitest JSON report: where, and why in brief. */
function failedTests(label, json) {
  const relative = (file) => file.replace(`${process.cwd()}/`, "");
  const firstLine = (messages) => (messages?.[0] ?? "").split("\n")[0].slice(0, 300);
  return json.testResults.flatMap((file) => {
    const tests = file.assertionResults.filter((test) => test.status === "failed");
    if (tests.length === 0 && file.status === "failed") return [`${label}: ${relative(file.name)}: ${firstLine([file.message])}`];
    return tests.map((test) => `${label}: ${relative(file.name)} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
  });
}

/** The five slowest files of a vitest JSON report, with their wall time in seconds. */
function slowestFiles(json) {
  return json.testResults
    .map((file) => ({ name: file.name.replace(`${process.cwd()}/`, ""), seconds: Math.round((file.endTime - file.startTime) / 1000) }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 5)
    .map((file) => `${file.name} ${file.seconds} s`)
    .join(", ");
}

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort) });
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

// Test files and test-only code (each package's src/testing, the e2e tests) are outside the packages'
// builds, so no test code reaches dist/ or the image; they are type-checked against the packages' sources
// by a program of their own (tsconfig.test.json), beside the build.
const checks = await Promise.all([
  check("type-check and build (tsc -b)", "npx", ["tsc", "-b"]),
  check("type-check the tests", "npx", ["tsc", "-p", "tsconfig.test.json"]),
]);
if (checks.includes(false)) {
  console.log("tests: 0 passed, 1 failed");
  process.exit(1);
}
// The format check and the type-aware linter (one program over the whole tree, about a minute and a half of
// CPU) run in the background; either failing fails `npm test`, and test/lint proves they catch what they are
// for. With server mode they start once the int and e2e tiers end, beside the crash tests: those mostly wait
// on kills and restarts and leave the cores half idle, where beside the other tiers, which keep both cores
// busy, the linter's CPU came out of their time. At nice 10 they leave a crash test's processes the CPU
// whenever these want it.
const styleChecks = () =>
  Promise.all([
    check("format (prettier --check)", "nice", ["-n", "10", "npx", "prettier", "--check", "."]),
    check("lint (eslint)", "nice", ["-n", "10", "npx", "eslint", "."]),
  ]);
const printed = (tier) => {
  console.log(`\n== ${tier.label} ==`);
  process.stdout.write(readFileSync(tier.log));
};
// Every tier runs at the same priority. The unit and embedded tiers once ran at nice 10, to leave the
// server tier's waits short; beside a CPU hog at nice 0 that left them a tenth of a core each, and a CI run
// with one took over 50 minutes with embedded int files timing out.
// The unit tier needs no database and takes a minute or two, and prints first.
const unit = vitest("unit", ["unit"], {});

const serverUp = (await reachable(postgresUrl, 5432)) && (await reachable(natsUrl, 4222));
// With the server tier running, the int and e2e files whose behaviour does not depend on the mode run there
// only: the embedded tier's PGlite is the most CPU of `npm test`, and two cores are the limit.
const embedded = { TIDINGS_TEST_MODE: "embedded", ...(serverUp ? { TIDINGS_TEST_EMBEDDED: "mode-dependent" } : {}) };
const embeddedTier = vitest("integration + e2e, embedded mode", ["int", "e2e"], embedded);
const tiers = [embeddedTier];
let style;
if (serverUp) {
  console.log("\nintegration + e2e run in embedded and server mode at once; each prints when it ends");
  console.log(
    `embedded mode leaves ${modeIndependentE2e.length} e2e files to server mode, as their behaviour does not depend on the mode ` +
      `(scripts/modeIndependentFiles.mjs): ${modeIndependentE2e.map((file) => basename(file, ".e2e.test.ts")).join(", ")}; ` +
      `and the api's int files that drive its routes and pages: ${modeIndependentInt.join(", ")}`,
  );
  const server = { TIDINGS_TEST_MODE: "server", TEST_POSTGRES_URL: postgresUrl, NATS_URL: natsUrl };
  // The int and the e2e files run side by side, one file each: both mostly wait on round trips. The crash
  // tests wait on kills, restarts and one email in flight; they get that latency best alone, after the rest.
  const serverTiers = Promise.all([
    vitest("integration, server mode (PostgreSQL + NATS)", ["int"], server),
    vitest("e2e, server mode (PostgreSQL + NATS)", ["e2e"], { ...server, TIDINGS_TEST_CRASH: "none" }),
  ]);
  tiers.push(
    serverTiers.then(async (both) => [
      ...both,
      await vitest("crash tests, server mode, one at a time", ["e2e"], { ...server, TIDINGS_TEST_CRASH: "only" }),
    ]),
  );
  style = Promise.all([embeddedTier, serverTiers]).then(styleChecks);
} else {
  if (process.env.CI) {
    console.log(`\nserver mode: PostgreSQL (${postgresUrl}) or NATS (${natsUrl}) does not answer, and CI must run it`);
    failedRuns++;
  } else {
    console.log(`\nserver mode skipped: PostgreSQL (${postgresUrl}) or NATS (${natsUrl}) does not answer`);
  }
  style = styleChecks();
}
printed(await unit);
for (const tier of (await Promise.all(tiers)).flat()) printed(tier);
await style;

if (!keptReports) rmSync(reports, { recursive: true, force: true });
console.log(`\nslowest files:\n${slowest.map((line) => `  ${line}`).join("\n")}`);
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ${line}`).join("\n")}`);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
process.exit(failedRuns > 0 || totals.failed > 0 ? 1 : 0);
