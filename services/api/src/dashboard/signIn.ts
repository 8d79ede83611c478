import { z } from "zod";
import type { FastifyReply, FastifyRequest } from "fastify";
import { apiCalls } from "./apiCalls.js";
import { dashboardSchema, field, isHttps, refusedForm, sendPage, signInPath, type Dashboard, type FormFields } from "./dashboard.js";
import { csrfTokenMatches } from "./csrf.js";
import { html, type Html } from "./html.js";
import { errorNotice, layout, successNotice } from "./layout.js";
import { clearedSessionCookie, dashboardPath, sessionCookie, sessionIdFrom } from "./sessionCookie.js";

/** Why a key was refused, in words a person can act on; the API's error name picks the sentence. */
const refusals: Record<string, { status: number; message: string }> = {
  restricted_api_key: {
    status: 403,
    message:
      "This key has sending access only: it may send emails but not read them, so it cannot open the dashboard. Sign in with a full-access key.",
  },
  invalid_api_key: { status: 401, message: "This API key is not valid: it may be mistyped, or it was deleted." },
  missing_api_key: { status: 400, message: "Paste an API key to sign in." },
  rate_limit_exceeded: { status: 429, message: "Too many requests with this key right now. Wait a moment and try again." },
};

const signInQuery = z.object({
  signed_out: z.string().max(10).optional(),
  expired: z.string().max(10).optional(),
});

function signInPage(options: { notice?: Html; status?: number }) {
  const body = html`<div class="signin">
    <h1>Sign in to Tidings</h1>
    ${options.notice}
    <form method="post" action="${dashboardPath}/sign-in" class="panel">
      <label for="api_key">Full-access API key</label>
      <input id="api_key" name="api_key" type="password" autocomplete="off" spellcheck="false" required aria-describedby="api_key_help" />
      <p id="api_key_help" class="muted">
        A key starting <code>re_</code>. <code>npm start</code> prints the first one; <code>tidings</code> makes more. The key stays on the
        server for this session and is forgotten when you sign out.
      </p>
      <button type="submit">Sign in</button>
    </form>
  </div>`;
  return { status: options.status ?? 200, page: layout({ title: "Sign in", body }) };
}

/**
 * Signing in and out (docs/dashboard.md, Signing in). A key is accepted when the API lets it list the
 * team's API keys, which only a full-access key may; the key then lives in the session, server-side, and
 * the browser holds an opaque session id.
 */
export function signInRoutes(dashboard: Dashboard): void {
  const { app, sessions } = dashboard;

  app.get(`${dashboardPath}/sign-in`, { schema: dashboardSchema({ querystring: signInQuery }) }, async (request, reply) => {
    if (sessions.find(sessionIdFrom(request.headers.cookie))) return sendPage(reply, { redirect: dashboardPath });
    const { signed_out, expired } = request.query;
    const notice = signed_out
      ? successNotice("You are signed out.")
      : expired
        ? errorNotice("Your session ended: the API key it used no longer works. Sign in with a current key.")
        : undefined;
    return sendPage(reply, signInPage({ notice }));
  });

  app.post(`${dashboardPath}/sign-in`, { schema: dashboardSchema({}) }, async (request, reply) => {
    // There is no session yet, so no CSRF token: the Origin check and SameSite keep another site from
    // signing a person in to a team of its choosing.
    if (!dashboard.fromThisSite(request)) return refuse(request, reply, "cross_site_form", 403, "This form came from another site.");
    const apiKey = field(request.body as FormFields, "api_key");
    if (!apiKey) return refuse(request, reply, "missing_api_key", 400, refusals.missing_api_key!.message);
    const answer = await apiCalls(app, apiKey).get("/api-keys?limit=1");
    if (!answer.ok) {
      const refusal = refusals[answer.name] ?? { status: 502, message: `The API could not check the key: ${answer.message}` };
      return refuse(request, reply, answer.name, refusal.status, refusal.message);
    }
    const session = sessions.create(apiKey);
    request.log.info({ event: "dashboard_sign_in" }, "signed in to the dashboard");
    reply.header("set-cookie", sessionCookie(session.id, { secure: isHttps(request) }));
    return sendPage(reply, { redirect: dashboardPath });
  });

  app.post(`${dashboardPath}/sign-out`, { schema: dashboardSchema({}) }, async (request, reply) => {
    const session = sessions.find(sessionIdFrom(request.headers.cookie));
    const form = (request.body ?? {}) as FormFields;
    if (session && dashboard.fromThisSite(request) && csrfTokenMatches(session.csrfToken, field(form, "csrf_token"))) {
      sessions.delete(session.id);
    } else if (session) {
      request.log.warn({ origin: request.headers.origin }, "dashboard sign-out refused: another site's, or without its session's token");
      return sendPage(reply, { status: 403, page: refusedForm() });
    }
    reply.header("set-cookie", clearedSessionCookie({ secure: isHttps(request) }));
    return sendPage(reply, { redirect: signInPath("signed_out") });
  });
}

/** Logged with the reason and the client's address, never with the key. */
function refuse(request: FastifyRequest, reply: FastifyReply, reason: string, status: number, message: string) {
  request.log.warn({ reason, ip: request.ip }, "dashboard sign-in refused");
  return sendPage(reply, signInPage({ notice: errorNotice(message), status }));
}
