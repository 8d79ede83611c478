import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTransportApp } from "./app.js";
import { capturingLogger } from "./testing/capturingLogger.js";

/** What the app takes a client's address to be, asked by a peer at 10.0.0.2 with a forwarded chain. */
async function clientAddress(trustProxy: boolean | number | string[] | undefined): Promise<string> {
  const app = buildTransportApp({
    logger: capturingLogger().logger,
    readiness: {},
    ...(trustProxy === undefined ? {} : { trustProxy }),
    routes: [
      (r) => {
        r.get("/whoami", { schema: { response: { 200: z.object({ ip: z.string() }) } } }, async (request) => ({ ip: request.ip }));
      },
    ],
  });
  try {
    const reply = await app.inject({
      method: "GET",
      url: "/whoami",
      remoteAddress: "10.0.0.2",
      headers: { "x-forwarded-for": "198.51.100.7, 10.0.0.1" },
    });
    return (reply.json() as { ip: string }).ip;
  } finally {
    await app.close();
  }
}

describe("the client's address behind proxies (TRUST_PROXY)", () => {
  it("is the peer's by default: a forwarded header anyone can send is not believed", async () =>
    expect(await clientAddress(undefined)).toBe("10.0.0.2"));
  it("is the first address of the chain when every hop is trusted", async () => expect(await clientAddress(true)).toBe("198.51.100.7"));
  it("is the address one hop out when one proxy is trusted", async () => expect(await clientAddress(1)).toBe("10.0.0.1"));
  it("skips the named proxies only", async () => {
    expect(await clientAddress(["10.0.0.0/8"])).toBe("198.51.100.7");
    expect(await clientAddress(["192.0.2.1"])).toBe("10.0.0.2");
  });
});
