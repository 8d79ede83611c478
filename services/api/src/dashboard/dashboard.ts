import { z } from "zod";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiInstance } from "../app.js";
import { addFormField, formFields } from "../formFields.js";
import { pageResponse } from "../mediaResponses.js";
import { errorBody } from "../plugins/errors.js";
import { apiCalls, type ApiAnswer, type ApiCalls, type UploadedFile } from "./apiCalls.js";
import { csrfTokenMatches, isSameOrigin } from "./csrf.js";
import { html, type Html, type HtmlValue } from "./html.js";
import { errorNotice, layout, type NavigationKey } from "./layout.js";
import { dashboardSecurityHeaders } from "./securityHeaders.js";
import { clearedSessionCookie, dashboardPath, sessionIdFrom } from "./sessionCookie.js";
import type { DashboardSession, DashboardSessions } from "./sessions.js";

/**
 * What a page handler answers: a page (200), a page with another status (and headers of its own: the
 * preview frame's CSP), or a redirect (303, after a form).
 */
export type PageResult = Html | { status: number; page: Html; headers?: Record<string, string> } | { redirect: string };

/** A signed-in person's request: their session, the API on their key, and the page frame. */
export interface SignedIn {
  session: DashboardSession;
  api: ApiCalls;
  /** A notice the next page of this session shows once (the outcome of a form, after its redirect). */
  flash(notice: Html): void;
  /** The page in the layout, with the navigation and any notice left by `flash`. */
  page(title: string, active: NavigationKey | undefined, body: HtmlValue): Html;
}

export type FormFields = Record<string, string[]>;

export interface Dashboard {
  app: ApiInstance;
  sessions: DashboardSessions;
  /**
   * Whether a POST's `Origin` is this site's: the address the request came to, or PUBLIC_URL's, since a
   * proxy that rewrites `Host` (nginx's default) would otherwise make every form look cross-site.
   */
  fromThisSite(request: FastifyRequest): boolean;
  /** A GET page for a signed-in person; without a session it redirects to the sign-in page. */
  page<Query = unknown, Params = unknown>(
    path: string,
    schemas: { querystring?: z.ZodType<Query>; params?: z.ZodType<Params> },
    handler: (who: SignedIn, input: { query: Query; params: Params }) => Promise<PageResult>,
  ): void;
  /** A form's POST: refused unless it comes from this site and carries the session's CSRF token. */
  action<Params = unknown>(
    path: string,
    schemas: { params?: z.ZodType<Params> },
    handler: (who: SignedIn, input: { params: Params; form: FormFields }) => Promise<PageResult>,
  ): void;
  /**
   * A form with a file (`multipart/form-data`), checked as `action` checks a form. Its fields must come
   * before its file, as the checks need the CSRF token before a byte of the file is passed on; the file is
   * the handler's to stream (`ApiCalls.upload`), and `undefined` when the form had none.
   */
  upload<Params = unknown>(
    path: string,
    schemas: { params?: z.ZodType<Params> },
    handler: (who: SignedIn, input: { params: Params; form: FormFields; file: UploadedFile | undefined }) => Promise<PageResult>,
  ): void;
}

/** The one value of a form field, or "" (a form posts each of its fields once). */
export const field = (form: FormFields, name: string): string => form[name]?.[0]?.trim() ?? "";

/** An API key that no longer works (deleted since sign-in) ends the session: its pages cannot show anything. */
class KeyGone extends Error {}

/** The origin this request was addressed to, as the server sees it behind the proxies TRUST_PROXY believes. */
const ownOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
export const isHttps = (request: FastifyRequest) => request.protocol === "https";

/** Fastify's schema for a dashboard route: kept out of the OpenAPI document, answered without a bearer key. */
export function dashboardSchema<Schemas extends { querystring?: z.ZodType; params?: z.ZodType }>(schemas: Schemas) {
  return {
    hide: true,
    security: [],
    ...schemas,
    response: {
      200: pageResponse("A dashboard page."),
      303: pageResponse("A redirect to the next dashboard page, with a page linking to it."),
    },
  };
}

export function sendPage(reply: FastifyReply, result: PageResult): FastifyReply {
  if ("redirect" in result) {
    return reply
      .code(303)
      .header("location", result.redirect)
      .type("text/html; charset=utf-8")
      .send(
        html`<!doctype html><title>Redirecting</title>
          <p><a href="${result.redirect}">Continue</a></p>`.text,
      );
  }
  const { status, page, headers } = "page" in result ? result : { status: 200, page: result, headers: undefined };
  return reply
    .code(status)
    .headers(headers ?? {})
    .type("text/html; charset=utf-8")
    .send(page.text);
}

/** The sign-in page's address, with why the person is there. */
export const signInPath = (reason?: "signed_out" | "expired") => `${dashboardPath}/sign-in${reason ? `?${reason}=1` : ""}`;

/**
 * Makes the dashboard's scope: HTML error pages instead of JSON errors, forms instead of JSON bodies, the
 * security headers on every answer, and `page`/`action`, which put a session behind every route.
 */
export function dashboardScope(app: ApiInstance, sessions: DashboardSessions, publicUrl: string): Dashboard {
  const publicOrigin = new URL(publicUrl).origin;
  const fromThisSite = (request: FastifyRequest) => isSameOrigin(request.headers.origin, [ownOrigin(request), publicOrigin]);
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
    done(null, formFields(body as string)),
  );
  app.addHook("onSend", async (_request, reply, payload) => {
    dashboardSecurityHeaders(reply);
    return payload;
  });
  app.setErrorHandler((error, request, reply) => {
    const { body, unexpected } = errorBody(error, request);
    if (unexpected) request.log.error({ err: error }, "a dashboard page failed");
    const title = body.statusCode === 400 ? "This address is not valid" : "Something went wrong";
    const detail = unexpected ? `The server's log has the details under request id ${request.id}.` : body.message;
    return sendPage(reply, {
      status: body.statusCode,
      page: layout({ title, body: [html`<h1>${title}</h1>`, errorNotice(title, detail)] }),
    });
  });

  const signedIn = (request: FastifyRequest, session: DashboardSession): SignedIn => {
    const calls = apiCalls(app, session.apiKey);
    const checked = async <Body>(answer: Promise<ApiAnswer<Body>>) => {
      const result = await answer;
      if (!result.ok && result.name === "invalid_api_key") throw new KeyGone();
      return result;
    };
    return {
      session,
      api: {
        get: (path) => checked(calls.get(path)),
        send: (method, path, body) => checked(calls.send(method, path, body)),
        upload: (path, fields, file) => checked(calls.upload(path, fields, file)),
      },
      flash: (notice) => void (session.notice = notice),
      page: (title, active, body) => {
        const notice = session.notice;
        delete session.notice;
        return layout({ title, signedIn: { active, csrfToken: session.csrfToken }, body: [notice, body] });
      },
    };
  };

  /** Whether a form comes from this site and, when its session exists, carries the session's CSRF token. */
  const trusted = (request: FastifyRequest, form: FormFields) => {
    const session = sessions.find(sessionIdFrom(request.headers.cookie));
    return fromThisSite(request) && (!session || csrfTokenMatches(session.csrfToken, field(form, "csrf_token")));
  };
  const refuse = (request: FastifyRequest, reply: FastifyReply, path: string) => {
    request.log.warn({ origin: request.headers.origin, path }, "dashboard form refused: another site's, or without its session's token");
    return sendPage(reply, { status: 403, page: refusedForm() });
  };

  async function run(request: FastifyRequest, reply: FastifyReply, handler: (who: SignedIn) => Promise<PageResult>) {
    const session = sessions.find(sessionIdFrom(request.headers.cookie));
    if (!session) return sendPage(reply, { redirect: signInPath() });
    try {
      return sendPage(reply, await handler(signedIn(request, session)));
    } catch (error) {
      if (!(error instanceof KeyGone)) throw error;
      sessions.delete(session.id);
      reply.header("set-cookie", clearedSessionCookie({ secure: isHttps(request) }));
      return sendPage(reply, { redirect: signInPath("expired") });
    }
  }

  return {
    app,
    sessions,
    fromThisSite,
    page(path, schemas, handler) {
      app.get(`${dashboardPath}${path}`, { schema: dashboardSchema(schemas) }, (request, reply) =>
        run(request, reply, (who) => handler(who, { query: request.query as never, params: request.params as never })),
      );
    },
    action(path, schemas, handler) {
      app.post(`${dashboardPath}${path}`, { schema: dashboardSchema(schemas) }, async (request, reply) => {
        const form = (request.body ?? {}) as FormFields;
        if (!trusted(request, form)) return refuse(request, reply, path);
        return run(request, reply, (who) => handler(who, { params: request.params as never, form }));
      });
    },
    upload(path, schemas, handler) {
      app.post(`${dashboardPath}${path}`, { schema: dashboardSchema(schemas) }, async (request, reply) => {
        const params = request.params as never;
        // A form sent without its file's encoding still gets the checks, and its handler says what is missing.
        const form = (request.isMultipart() ? {} : (request.body ?? {})) as FormFields;
        for await (const part of request.isMultipart() ? request.parts() : []) {
          if (part.type === "field") {
            addFormField(form, part.fieldname, String(part.value));
            continue;
          }
          if (!trusted(request, form)) {
            part.file.destroy();
            return refuse(request, reply, path);
          }
          const file = { field: part.fieldname, filename: part.filename, contentType: part.mimetype, content: part.file };
          try {
            return await run(request, reply, (who) => handler(who, { params, form, file }));
          } finally {
            // What the API did not read (it refused the file) is not read at all.
            if (!part.file.readableEnded) part.file.destroy();
          }
        }
        if (!trusted(request, form)) return refuse(request, reply, path);
        return run(request, reply, (who) => handler(who, { params, form, file: undefined }));
      });
    },
  };
}

/** A form refused by the CSRF checks, saying nothing changed and what to do. */
export function refusedForm(): Html {
  const title = "This form was refused";
  return layout({
    title,
    body: html`<h1>${title}</h1>
      ${errorNotice(
        "The form did not come from this dashboard's own pages, or it came from a page older than your session.",
        "Nothing was changed. Go back, reload the page and submit it again.",
      )}
      <p><a href="${dashboardPath}">Go to the dashboard</a></p>`,
  });
}
