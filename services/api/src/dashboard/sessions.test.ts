import { describe, expect, it } from "vitest";
import { DashboardSessions } from "./sessions.js";

describe("dashboard sessions", () => {
  it("finds a session by its id, and not after it is deleted", () => {
    const sessions = new DashboardSessions();
    const session = sessions.create("re_key");
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.find(session.id)?.apiKey).toBe("re_key");
    sessions.delete(session.id);
    expect(sessions.find(session.id)).toBeUndefined();
    expect(sessions.find(undefined)).toBeUndefined();
  });

  it("ends a session left idle too long, and keeps one in use", () => {
    let now = 0;
    const sessions = new DashboardSessions({ idleMs: 1000, now: () => now });
    const used = sessions.create("re_a");
    const idle = sessions.create("re_b");
    now = 900;
    expect(sessions.find(used.id)).toBeDefined();
    now = 1500;
    expect(sessions.find(used.id)).toBeDefined();
    expect(sessions.find(idle.id)).toBeUndefined();
  });

  it("ends the least recently used session past the maximum", () => {
    const sessions = new DashboardSessions({ max: 2 });
    const first = sessions.create("re_1");
    const second = sessions.create("re_2");
    sessions.find(first.id);
    sessions.create("re_3");
    expect(sessions.find(first.id)).toBeDefined();
    expect(sessions.find(second.id)).toBeUndefined();
  });
});
