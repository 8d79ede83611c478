import type { ApiInstance } from "../app.js";
import type { TestKey } from "./testServices.js";

/** A dashboard form as a browser posts it. */
export const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const formHeaders = { "content-type": "application/x-www-form-urlencoded" };

/** Signs in on the dashboard with a key, as its sign-in form does. */
export function dashboardSignIn(app: ApiInstance, key: TestKey, headers: Record<string, string> = {}) {
  return app.inject({
    method: "POST",
    url: "/dashboard/sign-in",
    headers: { ...formHeaders, ...headers },
    payload: formBody({ api_key: key.token }),
  });
}

/** A browser signed in on the dashboard: its cookie, the CSRF token its pages carry, and its GETs and form POSTs. */
export async function signedInBrowser(app: ApiInstance, key: TestKey) {
  const res = await dashboardSignIn(app, key);
  const cookie = String(res.headers["set-cookie"]).split(";")[0]!;
  const page = await app.inject({ method: "GET", url: "/dashboard/api-keys", headers: { cookie } });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  return {
    cookie,
    csrf,
    get: (url: string) => app.inject({ method: "GET", url, headers: { cookie } }),
    post: (url: string, fields: Record<string, string> = {}) =>
      app.inject({ method: "POST", url, headers: { ...formHeaders, cookie }, payload: formBody({ csrf_token: csrf, ...fields }) }),
  };
}
