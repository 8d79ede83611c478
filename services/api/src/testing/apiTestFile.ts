import { afterAll, beforeAll } from "vitest";
import type { Config } from "@tidings/core";
import type { ApiInstance } from "../app.js";
import { jsonCaller } from "./jsonCalls.js";
import { createTestServices, type TestKey, type TestServices } from "./testServices.js";

/** A test file's services, its app and the keys of two teams; all there from the file's `beforeAll` on. */
export interface ApiTestFile {
  readonly testServices: TestServices;
  readonly app: ApiInstance;
  /** A full-access key of the file's team: the one `call` sends unless told otherwise. */
  readonly admin: TestKey;
  /** A key of another team, to see that a team's resources stay its own. */
  readonly other: TestKey;
  /** `jsonCaller` on `app` with `admin`. */
  readonly call: ReturnType<typeof jsonCaller>;
}

/**
 * The real API of a test file (`createTestServices`), opened in the file's `beforeAll` with the teams
 * `<team>-team` and `<team>-other-team`, and closed in its `afterAll` (this registers both).
 */
export function apiTestFile(team: string, config?: Config): ApiTestFile {
  const file = {
    call: jsonCaller(
      () => file.app,
      () => file.admin,
    ),
  } as ApiTestFile;
  let testServices: TestServices | undefined;
  beforeAll(async () => {
    testServices = await createTestServices(config);
    const app = await testServices.app();
    Object.assign(file, {
      testServices,
      app,
      admin: await testServices.aKey(`${team}-team`),
      other: await testServices.aKey(`${team}-other-team`),
    });
  });
  afterAll(() => testServices?.dispose());
  return file;
}
