import type { ApiInstance } from "../app.js";
import type { ApiTestFile } from "./apiTestFile.js";
import type { TestKey } from "./testServices.js";

export const form = (fields: Record<string, string | string[]>) =>
  new URLSearchParams(Object.entries(fields).flatMap(([name, value]) => [value].flat().map((v): [string, string] => [name, v]))).toString();
export const formHeaders = { "content-type": "application/x-www-form-urlencoded" };

/** The dashboard's sign-in form, posted with `key` to `app`. */
export function dashboardSignIn(app: ApiInstance, key: TestKey, headers: Record<string, string> = {}) {
  return app.inject({
    method: "POST",
    url: "/dashboard/sign-in",
    headers: { ...formHeaders, ...headers },
    payload: form({ api_key: key.token }),
  });
}

export type DashboardBrowser = Awaited<ReturnType<typeof dashboardSession>>;

/** A signed-in browser on the file's app: its cookie, the CSRF token its pages carry, and a page or a form with both. */
export async function dashboardSession(file: ApiTestFile, key: TestKey = file.admin) {
  const res = await dashboardSignIn(file.app, key);
  const cookie = String(res.headers["set-cookie"]).split(";")[0]!;
  const page = await file.app.inject({ method: "GET", url: "/dashboard/api-keys", headers: { cookie } });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  return {
    cookie,
    csrf,
    get: (url: string) => file.app.inject({ method: "GET", url, headers: { cookie } }),
    post: (url: string, fields: Record<string, string | string[]> = {}) =>
      file.app.inject({ method: "POST", url, headers: { ...formHeaders, cookie }, payload: form({ csrf_token: csrf, ...fields }) }),
  };
}
