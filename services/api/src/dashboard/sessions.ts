import { randomBytes } from "node:crypto";
import { newCsrfToken } from "./csrf.js";
import type { Html } from "./html.js";

/** One signed-in browser: the API key it signed in with, and the token its forms must carry. */
export interface DashboardSession {
  id: string;
  apiKey: string;
  csrfToken: string;
  lastSeenAt: number;
  /** What the next page shows once: the outcome of the form that redirected there. */
  notice?: Html;
}

export interface SessionOptions {
  /** A session unused this long is gone (default 12 hours: a working day, not a week). */
  idleMs?: number;
  /** At most this many sessions; signing in past it ends the least recently used (default 10,000). */
  max?: number;
  now?: () => number;
}

/**
 * The dashboard's sessions, in this process's memory (docs/dashboard.md, Sessions). The session holds a
 * full-access API key, which the server must be able to use, so it cannot be stored hashed; kept in
 * memory it is never written to disk or to the database, and a restart of the api signs everyone out,
 * which costs a person one paste of their key. Several api instances behind one address need sticky
 * sessions for the same reason.
 */
export class DashboardSessions {
  private readonly sessions = new Map<string, DashboardSession>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: SessionOptions = {}) {
    this.idleMs = options.idleMs ?? 12 * 60 * 60 * 1000;
    this.max = options.max ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  create(apiKey: string): DashboardSession {
    const session = { id: randomBytes(32).toString("base64url"), apiKey, csrfToken: newCsrfToken(), lastSeenAt: this.now() };
    this.sessions.set(session.id, session);
    // The Map keeps insertion order, and `find` re-inserts: the first entry is the least recently used.
    while (this.sessions.size > this.max) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  /** The live session of that id, now marked used; an idle one is deleted and not found. */
  find(id: string | undefined): DashboardSession | undefined {
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session) return undefined;
    this.sessions.delete(session.id);
    if (this.now() - session.lastSeenAt > this.idleMs) return undefined;
    session.lastSeenAt = this.now();
    this.sessions.set(session.id, session);
    return session;
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }
}
