import { expect } from "vitest";
import type { ApiInstance } from "../app.js";
import type { TestKey } from "./testServices.js";

export type JsonMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * `call(method, url, payload?, key?, headers?)` on an app with a JSON body and a key, answering `{status, body}`.
 * The app and the default key are read when called: test files set them in `beforeAll`.
 */
export function jsonCaller(app: () => ApiInstance, defaultKey: () => TestKey) {
  return async (method: JsonMethod, url: string, payload?: unknown, key: TestKey = defaultKey(), headers: Record<string, string> = {}) => {
    const res = await app().inject({
      method,
      url,
      headers: { ...key.headers, "content-type": "application/json", ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: res.statusCode, body: res.json() };
  };
}

/** What `call` answers for an error in the contract's shape; `message` may be a pattern. */
export const wireError = (statusCode: number, name: string, message: string | RegExp) => ({
  status: statusCode,
  body: { statusCode, name, message: typeof message === "string" ? message : expect.stringMatching(message) },
});
