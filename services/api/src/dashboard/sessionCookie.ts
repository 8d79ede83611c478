/**
 * The dashboard's session cookie: an opaque id, never the API key. `HttpOnly` keeps it from scripts,
 * `SameSite=Strict` off requests that other sites start, and `Secure` off plain http when the request came
 * over https (directly, or through a proxy TRUST_PROXY believes). It lives as long as the browser session,
 * and is scoped to `/dashboard`, so the API's own routes never receive it.
 */

export const sessionCookieName = "tidings_dashboard";
export const dashboardPath = "/dashboard";

export function sessionCookie(id: string, options: { secure: boolean }): string {
  return [`${sessionCookieName}=${id}`, `Path=${dashboardPath}`, "HttpOnly", "SameSite=Strict", ...(options.secure ? ["Secure"] : [])].join(
    "; ",
  );
}

/** Tells the browser to forget the cookie at once. */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return `${sessionCookie("", options)}; Max-Age=0`;
}

/** The session id from a `Cookie` header, or undefined. */
export function sessionIdFrom(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === sessionCookieName && value.length > 0) return value.join("=") || undefined;
  }
  return undefined;
}
