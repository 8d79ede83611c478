import { generate } from "selfsigned";

export interface TestCertificate {
  key: string;
  cert: string;
}

let shared: Promise<TestCertificate> | undefined;

/**
 * A self-signed certificate for localhost and 127.0.0.1, valid from now for a day, made once per process.
 * smtp-server's built-in one has expired (STACK-NOTES), so a sink that offers STARTTLS needs its own.
 */
export function testCertificate(): Promise<TestCertificate> {
  shared ??= generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: "basicConstraints", cA: false },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  }).then((pems) => ({ key: pems.private, cert: pems.cert }));
  return shared;
}
