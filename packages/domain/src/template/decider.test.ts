import { describe, it } from "vitest";
import { given, itRefuses, now, otherTeam, teamId } from "../testing/scenario.js";
import { templateDecider, type TemplateCommand } from "./decider.js";
import type { TemplateContent, TemplateEvent } from "./events.js";

const templateId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const v1 = "11111111-1111-4111-8111-111111111111";
const v2 = "22222222-2222-4222-8222-222222222222";
const later = "2026-11-23 11:00:00.000000+00";

const aContent = (overrides: Partial<TemplateContent> = {}): TemplateContent => ({
  name: "Welcome",
  alias: "welcome",
  subject: "Hello {{{NAME}}}",
  html: "<p>Hi {{{NAME}}}</p>",
  text: null,
  from: "Acme <hello@acme.test>",
  replyTo: null,
  variables: [{ key: "NAME", type: "string", fallbackValue: "there" }],
  ...overrides,
});

const create = (content: Partial<TemplateContent> = {}): TemplateCommand => ({
  type: "CreateTemplate",
  templateId,
  teamId,
  versionId: v1,
  content: aContent(content),
  duplicatedFrom: null,
  now,
});

const created: TemplateEvent = {
  type: "TemplateCreated",
  data: { templateId, teamId, versionId: v1, duplicatedFrom: null, createdAt: now, ...aContent() },
};
const published: TemplateEvent = { type: "TemplatePublished", data: { templateId, versionId: v1, version: 1, publishedAt: now } };
const update = (changes: Partial<TemplateContent>, teamOf = teamId): TemplateCommand => ({
  type: "UpdateTemplate",
  teamId: teamOf,
  changes,
  versionId: v2,
  now: later,
});

describe("template decider: create", () => {
  it("creates a draft", () => given(templateDecider).when(create()).then([created]));

  it("treats its own retried create as done", () => given(templateDecider, [created]).when(create()).then([]));

  itRefuses(templateDecider, [
    ["rejects an empty name", create({ name: " " }), "validation_error", /`name`/],
    ["rejects an empty html", create({ html: "" }), "validation_error", /`html`/],
    [
      "rejects more than 50 variables",
      create({ variables: Array.from({ length: 51 }, (_, i) => ({ key: `V${i}`, type: "string" as const, fallbackValue: null })) }),
      "validation_error",
      /at most 50/,
    ],
    [
      "rejects a number variable with a text fallback",
      create({ variables: [{ key: "COUNT", type: "number", fallbackValue: "3" }] }),
      "validation_error",
      /variables\[0\]`\.fallback_value must be a number/,
    ],
    [
      "rejects a string variable with a number fallback",
      create({ variables: [{ key: "NAME", type: "string", fallbackValue: 3 }] }),
      "validation_error",
      /fallback_value must be a string/,
    ],
    [
      "rejects a key declared twice",
      create({
        variables: [
          { key: "A", type: "string", fallbackValue: null },
          { key: "A", type: "number", fallbackValue: null },
        ],
      }),
      "validation_error",
      /`variables\[1\]`\.key `A` is declared twice/,
    ],
    [
      "rejects a key that is not letters, digits and underscores",
      create({ variables: [{ key: "first-name", type: "string", fallbackValue: null }] }),
      "validation_error",
      /variables\[0\]`\.key/,
    ],
    [
      "rejects a reserved key",
      create({ variables: [{ key: "EMAIL", type: "string", fallbackValue: null }] }),
      "validation_error",
      /reserved/,
    ],
    ["rejects a sender that is not a mailbox", create({ from: "acme.test" }), "invalid_from_address", /`from`/],
    ["rejects a reply-to that is not an address", create({ replyTo: ["ok@acme.test", "nope"] }), "validation_error", /`reply_to\[1\]`/],
    ["rejects an alias that cannot travel raw in a path", create({ alias: "a/b" }), "validation_error", /`alias`/],
  ]);

  it("accepts exactly 50 variables", () => {
    const variables = Array.from({ length: 50 }, (_, i) => ({ key: `V${i}`, type: "number" as const, fallbackValue: i }));
    given(templateDecider)
      .when(create({ variables }))
      .then([{ type: "TemplateCreated", data: { ...created.data, variables } } as TemplateEvent]);
  });

  it("accepts a bare sender address", () =>
    given(templateDecider)
      .when(create({ from: "hello@acme.test" }))
      .then([{ type: "TemplateCreated", data: { ...created.data, from: "hello@acme.test" } } as TemplateEvent]));
});

describe("template decider: versions", () => {
  it("publishes the draft as version 1", () =>
    given(templateDecider, [created]).when({ type: "PublishTemplate", teamId, now }).then([published]));

  it("publishing again with nothing new does nothing", () =>
    given(templateDecider, [created, published]).when({ type: "PublishTemplate", teamId, now }).then([]));

  it("edits an unpublished draft in place", () =>
    given(templateDecider, [created])
      .when(update({ subject: "Hi" }))
      .then([
        { type: "TemplateUpdated", data: { templateId, versionId: v1, version: 1, updatedAt: later, ...aContent({ subject: "Hi" }) } },
      ]));

  it("starts a new version when the edited one is published", () =>
    given(templateDecider, [created, published])
      .when(update({ subject: "Hi" }))
      .then([
        { type: "TemplateUpdated", data: { templateId, versionId: v2, version: 2, updatedAt: later, ...aContent({ subject: "Hi" }) } },
      ]));

  it("publishes the new version as version 2", () =>
    given(templateDecider, [
      created,
      published,
      { type: "TemplateUpdated", data: { templateId, versionId: v2, version: 2, updatedAt: later, ...aContent({ subject: "Hi" }) } },
    ])
      .when({ type: "PublishTemplate", teamId, now: later })
      .then([{ type: "TemplatePublished", data: { templateId, versionId: v2, version: 2, publishedAt: later } }]));

  it("an edit that changes nothing records nothing", () =>
    given(templateDecider, [created, published])
      .when(update({ name: "Welcome" }))
      .then([]));

  it("checks the edited template against the same rules", () =>
    given(templateDecider, [created])
      .when(update({ variables: [{ key: "N", type: "number", fallbackValue: "x" }] }))
      .thenError("validation_error"));

  it("does not edit another team's template", () =>
    given(templateDecider, [created])
      .when(update({ name: "x" }, otherTeam))
      .thenError("not_found", "Template not found"));
});

describe("template decider: delete", () => {
  it("deletes once, naming the alias it frees", () =>
    given(templateDecider, [created])
      .when({ type: "DeleteTemplate", teamId, now })
      .then([{ type: "TemplateDeleted", data: { templateId, alias: "welcome", deletedAt: now } }]));

  it("answers not found after deletion", () =>
    given(templateDecider, [created, { type: "TemplateDeleted", data: { templateId, alias: "welcome", deletedAt: now } }])
      .when({ type: "PublishTemplate", teamId, now })
      .thenError("not_found"));

  it("answers not found for a template that never existed", () =>
    given(templateDecider).when({ type: "DeleteTemplate", teamId, now }).thenError("not_found"));
});
