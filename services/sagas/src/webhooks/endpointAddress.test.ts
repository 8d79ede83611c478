import { describe, expect, it } from "vitest";
import { resolveEndpoint } from "./endpointAddress.js";

describe("webhook endpoint addresses", () => {
  it("refuses a literal loopback endpoint unless private addresses are allowed", async () => {
    await expect(resolveEndpoint("127.0.0.1", false)).rejects.toThrow(/private, loopback or link-local/);
    await expect(resolveEndpoint("[::1]", false)).rejects.toThrow(/::1/);
    await expect(resolveEndpoint("127.0.0.1", true)).resolves.toEqual({ address: "127.0.0.1", family: 4 });
  });

  it("resolves a name and checks what it resolves to", async () => {
    await expect(resolveEndpoint("localhost", false)).rejects.toThrow(/localhost resolves to/);
  });
});
