import { describe, expect, it } from "vitest";
import { given } from "../testing/scenario.js";
import { anEmailContent } from "../testing/anEmailContent.js";
import { emailDecider, type EmailCommand } from "./decider.js";
import { classifyEngagement } from "./engagement.js";
import type { EmailEvent } from "./events.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const content = anEmailContent({ emailId, createdAt: "2026-11-23 10:00:00.000000+00" });
const queued: EmailEvent = { type: "EmailQueued", data: content };
const reply = { response: "250 OK", code: 250 };
const deliveredAt = "2026-11-23 10:00:01.000000+00";
const delivered: EmailEvent = { type: "EmailDelivered", data: { emailId, deliveredAt, ...reply, recipients: ["ann@example.test"] } };
const firefox = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0";
const person = { ipAddress: "203.0.113.7", userAgent: firefox };

const click = (now: string, who = person): EmailCommand => ({
  type: "RecordEmailClicked",
  link: "https://acme.test/offer?a=1&b=2",
  linkIndex: 1,
  now,
  ...who,
});

describe("email decider: opens and clicks", () => {
  it("records a person's click a while after delivery, and last_event becomes clicked", () => {
    given(emailDecider, [queued, delivered])
      .when(click("2026-11-23 10:05:00.000000+00"))
      .then([
        {
          type: "EmailClicked",
          data: {
            emailId,
            link: "https://acme.test/offer?a=1&b=2",
            linkIndex: 1,
            clickedAt: "2026-11-23 10:05:00.000000+00",
            ...person,
            machine: false,
            machineReason: null,
          },
        },
      ]);
    const clicked = emailDecider.decide(
      click("2026-11-23 10:05:00.000000+00"),
      [queued, delivered].reduce(emailDecider.evolve, emailDecider.initialState),
    ) as EmailEvent[];
    expect([queued, delivered, ...clicked].reduce(emailDecider.evolve, emailDecider.initialState)).toMatchObject({
      status: "clicked",
      deliveredAt,
    });
  });

  it("flags a click within 2 s of delivery, or before any delivery is recorded, as a machine's", () => {
    given(emailDecider, [queued, delivered])
      .when(click("2026-11-23 10:00:02.500000+00"))
      .then([
        expect.objectContaining({
          data: expect.objectContaining({ machine: true, machineReason: "click_within_2s_of_delivery" }),
        }) as EmailEvent,
      ]);
    given(emailDecider, [queued])
      .when(click("2026-11-23 10:00:00.100000+00"))
      .then([expect.objectContaining({ data: expect.objectContaining({ machine: true }) }) as EmailEvent]);
  });

  it("records every open, the latest one giving last_event", () => {
    const open: EmailCommand = { type: "RecordEmailOpened", now: "2026-11-23 10:00:01.500000+00", ...person };
    given(emailDecider, [queued, delivered])
      .when(open)
      .then([
        {
          type: "EmailOpened",
          data: { emailId, openedAt: "2026-11-23 10:00:01.500000+00", ...person, machine: false, machineReason: null },
        },
      ]);
  });

  it("finds no email to engage with before it exists", () =>
    given(emailDecider).when(click("2026-11-23 10:05:00.000000+00")).thenError("not_found"));
});

describe("classifyEngagement", () => {
  const at = new Date("2026-11-23T10:10:00Z");
  const classify = (userAgent: string | null, ipAddress: string | null = "203.0.113.7", kind: "open" | "click" = "open") =>
    classifyEngagement({ kind, userAgent, ipAddress, at, deliveredAt: new Date("2026-11-23T10:00:00Z") });

  it("knows privacy proxies and link scanners by their user agent", () => {
    expect(classify("Mozilla/5.0")).toEqual({ machine: true, reason: "apple_mail_privacy_protection" });
    expect(classify("Mozilla/5.0 (compatible; Proofpoint URL Defense)").reason).toBe("proofpoint");
    expect(classify("Mimecast Link Scanner").reason).toBe("mimecast");
    expect(classify("Barracuda Sentinel (EE)").reason).toBe("barracuda");
    expect(classify("python-requests/2.31.0").reason).toBe("http_library");
    expect(
      classify("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0 Safari/537.36").reason,
    ).toBe("headless_browser");
    expect(classify("")).toEqual({ machine: true, reason: "no_user_agent" });
    expect(classify(null).machine).toBe(true);
  });

  it("knows scanners by their network, with the IPv4-mapped form too", () => {
    expect(classify(firefox, "40.94.12.3", "click")).toEqual({ machine: true, reason: "microsoft_safe_links" });
    expect(classify(firefox, "::ffff:148.163.130.9", "click").reason).toBe("proofpoint");
    expect(classify(firefox, "17.58.1.1").reason).toBe("apple_mail_privacy_protection");
  });

  it("takes a browser from an ordinary network for a person, and Gmail's image proxy too (it fetches when the reader opens)", () => {
    expect(classify(firefox, "203.0.113.7", "click")).toEqual({ machine: false, reason: null });
    expect(
      classify("Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)", "66.249.84.1").machine,
    ).toBe(false);
    expect(classify(firefox, "2001:db8::1", "click").machine).toBe(false);
  });
});
