import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "./privateAddresses.js";

describe("addresses Tidings does not connect to for a customer", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "not-an-ip",
  ])("refuses %s", (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])("allows %s", (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  );
});
