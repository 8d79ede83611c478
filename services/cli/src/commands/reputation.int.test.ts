import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME, teamIdForName } from "@tidings/api";
import { reputationStream } from "@tidings/domain";
import { activeSendingPauses } from "@tidings/projections";
import { scrape } from "@tidings/metrics/testing";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import type { CheckResult } from "../doctor/installationChecks.js";
import { runCommand } from "../main.js";
import { freshSettings } from "../testing/freshSettings.js";
import { doctor } from "./doctor.js";
import { serve, type Serving } from "./serve.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Projections and sagas beside a CPU hog: every wait polls up to this, and ends as soon as it holds. */
const DEADLINE_MS = 60_000;

async function until<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const giveUpAt = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await attempt();
    if (found !== undefined) return found;
    if (Date.now() > giveUpAt) throw new Error(`${what} did not happen within ${DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("reputation guardrails", () => {
  let sink: SmtpSink;
  let settings: Record<string, string>;
  let serving: Serving;
  const teamId = teamIdForName(BOOTSTRAP_TEAM_NAME);

  beforeAll(async () => {
    sink = await startSmtpSink();
    cleanups.push(() => sink.close());
    settings = await freshSettings(
      {
        MAIL_TRANSPORT: "smtp",
        SMTP_URL: sink.url,
        TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
        // Four emails with an outcome make a sample, and half of them bouncing pauses the team.
        REPUTATION_BOUNCE_RATE_PAUSE: "0.5",
        REPUTATION_MIN_SENDS: "4",
        METRICS_PORT: "0",
      },
      (undo) => cleanups.push(undo),
    );
    serving = await serve(loadConfig(settings), createLogger("silent"), "all");
    cleanups.push(() => serving.stop());
  });

  const send = (to: string) =>
    fetch(`${serving.url}/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${settings.TIDINGS_BOOTSTRAP_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ from: "news@reputation.example", to, subject: "Hello", text: "Hi" }),
    });
  /** The paused teams the gauge shows, once it shows `count`: it is read from the read model at most every 5 s. */
  const gaugeShows = (count: number) =>
    until(`tidings_sending_paused{scope="team"} ${count}`, async () => {
      const scraped = await scrape(serving.metricsUrl!);
      return scraped.total("tidings_sending_paused", { scope: "team" }) === count ? scraped : undefined;
    });
  const cli = async (...argv: string[]) => {
    const printed: string[] = [];
    const code = await runCommand(argv, serving.runtime, {
      out: (line) => void printed.push(line),
      err: (line) => void printed.push(line),
    });
    return { code, printed };
  };

  it("pauses a team whose bounce rate crosses the threshold, refuses its sends naming the rate, and sends again once lifted", async () => {
    // Four recipients the relay refuses for good: four hard bounces, a bounce rate of 100% over the minimum sample.
    const gone = [1, 2, 3, 4].map((n) => `gone${n}@reputation.example`);
    for (const address of gone) sink.refuseRecipient(address, { code: 550, message: "5.1.1 no such user" });
    for (const address of gone) expect((await send(address)).status).toBe(200);

    const [pause] = await until("the pause", async () => {
      const pauses = await activeSendingPauses(serving.runtime.database);
      return pauses.length > 0 ? pauses : undefined;
    });
    expect(pause).toMatchObject({ scope: "team", scopeId: teamId, teamId, metric: "bounce", threshold: 0.5, windowHours: 24 });
    expect(pause!.rate).toBeGreaterThanOrEqual(0.5);

    // The api takes up a pause within a second of its read model: a send until then still goes.
    const refused = await until("a refused send", async () => {
      const res = await send("ada@reputation.example");
      return res.status === 200 ? undefined : { status: res.status, body: (await res.json()) as { name: string; message: string } };
    });
    expect(refused.status).toBe(403);
    expect(refused.body.name).toBe("validation_error");
    expect(refused.body.message).toMatch(
      new RegExp(
        `^Sending from team ${teamId} is paused: bounce rate \\d+\\.\\d% of \\d+ emails over the last 24 h reached the 50\\.0% limit\\.`,
      ),
    );
    expect(refused.body.message).toContain(`tidings reputation lift --team ${teamId}`);

    const listed = await cli("reputation", "list");
    expect(listed.code).toBe(0);
    expect(listed.printed.join("\n")).toMatch(new RegExp(`team +${teamId} +bounce \\d+\\.\\d%`));
    const printed: string[] = [];
    expect(await doctor(serving.runtime.config, serving.runtime, true, { out: (line) => void printed.push(line), err: () => {} })).toBe(1);
    const check = (JSON.parse(printed.join("")) as { checks: CheckResult[] }).checks.find((c) => c.check === "sending pauses")!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(new RegExp(`^team ${teamId} paused at bounce rate`));
    expect(check.fix).toContain("tidings reputation lift");
    const scraped = await gaugeShows(1);
    expect(scraped.total("tidings_sending_paused", { scope: "domain" })).toBe(0);
    expect(scraped.tidingsLabelValues()).not.toContain(teamId);

    expect(await cli("reputation", "lift", "--team", BOOTSTRAP_TEAM_NAME)).toEqual({
      code: 0,
      printed: [`lifted the pause of team ${BOOTSTRAP_TEAM_NAME}; its bounce rate counts again from now`],
    });
    const lifted = (await serving.runtime.store.readStream(reputationStream(teamId))).map((e) => ({
      type: e.type,
      actor: e.metadata.actor,
    }));
    expect(lifted).toEqual([
      { type: "SendingPaused", actor: "saga:reputation" },
      { type: "SendingPauseLifted", actor: "cli" },
    ]);
    expect((await cli("reputation", "lift", "--team", teamId)).code).toBe(2);
    await gaugeShows(0);

    const accepted = await until("an accepted send", async () => {
      const res = await send("ada@reputation.example");
      return res.status === 200 ? ((await res.json()) as { id: string }) : undefined;
    });
    expect(accepted.id).toBeTruthy();
    await sink.waitFor((received) => received.some((m) => m.envelope.to.includes("ada@reputation.example")), DEADLINE_MS);
  });
});
