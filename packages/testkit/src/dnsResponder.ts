import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";

export interface DnsZone {
  [name: string]: {
    MX?: { priority: number; exchange: string }[];
    A?: string[];
    AAAA?: string[];
    /** Each record is one string; longer than 255 bytes, it is split into character-strings. */
    TXT?: string[];
    CNAME?: string[];
    /** Answer SERVFAIL for this name, whatever the type. */
    SERVFAIL?: true;
  };
}

export interface DnsResponder {
  /** `127.0.0.1:port`, for DNS_SERVERS or `Resolver.setServers`. */
  address: string;
  /** Mutable: tests may change records between lookups. */
  zone: DnsZone;
  close(): Promise<void>;
}

type RecordType = "A" | "MX" | "TXT" | "AAAA" | "CNAME";
const types: Record<number, RecordType> = { 1: "A", 5: "CNAME", 15: "MX", 16: "TXT", 28: "AAAA" };

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, "").split(".").filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, "ascii")])), Buffer.from([0])]);
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  return bytes;
}

function rdata(type: RecordType, value: unknown): Buffer {
  switch (type) {
    case "A":
      return Buffer.from((value as string).split(".").map(Number));
    case "AAAA":
      return ipv6Bytes(value as string);
    case "CNAME":
      return encodeName(value as string);
    case "MX": {
      const mx = value as { priority: number; exchange: string };
      const preference = Buffer.alloc(2);
      preference.writeUInt16BE(mx.priority);
      return Buffer.concat([preference, encodeName(mx.exchange)]);
    }
    case "TXT": {
      const text = Buffer.from(value as string, "utf8");
      const parts: Buffer[] = [];
      for (let i = 0; i < text.length || i === 0; i += 255) {
        const part = text.subarray(i, i + 255);
        parts.push(Buffer.from([part.length]), part);
      }
      return Buffer.concat(parts);
    }
  }
}

/**
 * A tiny authoritative DNS server over UDP on loopback: real DNS packets, so code under test resolves
 * through `node:dns` exactly as in production. A, AAAA, CNAME, MX and TXT; an unknown name is NXDOMAIN, a
 * known name without records of the asked type is NODATA, and a name marked SERVFAIL answers SERVFAIL. A
 * test withholds a record by leaving it out of `zone`, or deleting it between lookups.
 */
export async function startDnsResponder(zone: DnsZone): Promise<DnsResponder> {
  const socket = createSocket("udp4");
  const responder: DnsResponder = {
    address: "",
    zone,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };

  socket.on("message", (query, peer) => {
    if (query.length < 12) return;
    let offset = 12;
    const labels: string[] = [];
    while (offset < query.length && query[offset]! > 0) {
      const length = query[offset]!;
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString("ascii"));
      offset += length + 1;
    }
    const questionEnd = offset + 5;
    if (questionEnd > query.length) return;
    const qtype = query.readUInt16BE(offset + 1);
    const name = labels.join(".").toLowerCase();
    const entry = Object.entries(responder.zone).find(([n]) => n.toLowerCase().replace(/\.$/, "") === name)?.[1];
    const type = types[qtype];
    const values: unknown[] = entry && type && !entry.SERVFAIL ? (entry[type] ?? []) : [];
    const rcode = !entry ? 3 : entry.SERVFAIL ? 2 : 0;

    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    // QR, the query's opcode and RD, AA, RA, and the rcode.
    header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(values.length, 6);
    const answers = values.map((value) => {
      const data = rdata(type!, value);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      fixed.writeUInt16BE(qtype, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });

  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => resolve());
  });
  responder.address = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return responder;
}
