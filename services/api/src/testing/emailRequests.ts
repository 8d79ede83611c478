import type { ApiTestFile } from "./apiTestFile.js";
import type { TestKey } from "./testServices.js";

/** A valid `POST /emails` body from Acme to Ann; `overrides` changes it, and a field set to undefined is left out. */
export const anEmail = (overrides: Record<string, unknown> = {}) => ({
  from: "Acme <hello@acme.test>",
  to: "ann@example.test",
  subject: "Welcome",
  html: "<p>Hello <strong>Ann</strong></p>",
  ...overrides,
});

/** `send(overrides?, key?)`: `POST /emails` of `anEmail(overrides)` on the file's app, with its admin key unless told. */
export const emailSender =
  (file: ApiTestFile) =>
  (overrides: Record<string, unknown> = {}, key: TestKey = file.admin) =>
    file.call("POST", "/emails", anEmail(overrides), key);
