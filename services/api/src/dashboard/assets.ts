import { createHash } from "node:crypto";
import { dashboardPath } from "./sessionCookie.js";
import { dashboardJs } from "./script.js";
import { dashboardCss } from "./styles.js";

const version = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);

/**
 * The style sheet and the script, each at a URL that carries its content's hash: a browser may keep them
 * for a year, and a new release is a new URL. They come from this server, never from a CDN.
 */
export const dashboardAssets = {
  css: { path: `${dashboardPath}/assets/dashboard.css`, href: `${dashboardPath}/assets/dashboard.css?v=${version(dashboardCss)}` },
  js: { path: `${dashboardPath}/assets/dashboard.js`, href: `${dashboardPath}/assets/dashboard.js?v=${version(dashboardJs)}` },
};
