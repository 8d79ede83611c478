import { describe, expect, it } from "vitest";
import { isForbiddenAddress, resolveEndpoint } from "./endpointAddress.js";

describe("webhook endpoint addresses", () => {
  it.each(["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1"])(
    "refuses %s",
    (address) => expect(isForbiddenAddress(address)).toBe(true),
  );

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111"])("allows %s", (address) => expect(isForbiddenAddress(address)).toBe(false));

  it("refuses a literal loopback endpoint unless private addresses are allowed", async () => {
    await expect(resolveEndpoint("127.0.0.1", false)).rejects.toThrow(/private, loopback or link-local/);
    await expect(resolveEndpoint("[::1]", false)).rejects.toThrow(/::1/);
    await expect(resolveEndpoint("127.0.0.1", true)).resolves.toEqual({ address: "127.0.0.1", family: 4 });
  });

  it("resolves a name and checks what it resolves to", async () => {
    await expect(resolveEndpoint("localhost", false)).rejects.toThrow(/localhost resolves to/);
  });
});
