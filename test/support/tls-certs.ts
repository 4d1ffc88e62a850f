/**
 * Throw-away certificates for mutual-TLS tests, made by the `openssl` binary in a temp dir: a CA, a server
 * certificate for 127.0.0.1 (IP SAN) and two client certificates, all signed by the CA, and a second CA with a client
 * certificate of its own (one the server must refuse).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPki {
  readonly dir: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A second client certificate/key of the same CA (CN `supernode-2`): a renewed certificate. */
  readonly client2Cert: string;
  readonly client2Key: string;
  /** A client certificate/key signed by another CA. */
  readonly strangerCert: string;
  readonly strangerKey: string;
}

export function makeTestPki(openssl = "openssl"): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "sn-pki-"));
  const p = (n: string) => join(dir, n);
  const run = (args: string[]) => execFileSync(openssl, args, { cwd: dir, stdio: "pipe" });
  const key = (name: string) => run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p(name)]);
  const ca = (name: string, cn: string) => {
    key(`${name}.key`);
    run([
      "req",
      "-x509",
      "-new",
      "-key",
      p(`${name}.key`),
      "-subj",
      `/CN=${cn}`,
      "-days",
      "2",
      "-out",
      p(`${name}.crt`),
    ]);
  };
  const leaf = (name: string, cn: string, caName: string, ext: string) => {
    key(`${name}.key`);
    run(["req", "-new", "-key", p(`${name}.key`), "-subj", `/CN=${cn}`, "-out", p(`${name}.csr`)]);
    writeFileSync(p(`${name}.ext`), ext);
    run([
      "x509",
      "-req",
      "-in",
      p(`${name}.csr`),
      "-CA",
      p(`${caName}.crt`),
      "-CAkey",
      p(`${caName}.key`),
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      p(`${name}.ext`),
      "-out",
      p(`${name}.crt`),
    ]);
  };
  ca("ca", "supernode test CA");
  ca("other-ca", "another CA");
  leaf("server", "127.0.0.1", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  leaf("client", "supernode", "ca", "extendedKeyUsage=clientAuth\n");
  leaf("client2", "supernode-2", "ca", "extendedKeyUsage=clientAuth\n");
  leaf("stranger", "stranger", "other-ca", "extendedKeyUsage=clientAuth\n");
  return {
    dir,
    ca: p("ca.crt"),
    serverCert: p("server.crt"),
    serverKey: p("server.key"),
    clientCert: p("client.crt"),
    clientKey: p("client.key"),
    client2Cert: p("client2.crt"),
    client2Key: p("client2.key"),
    strangerCert: p("stranger.crt"),
    strangerKey: p("stranger.key"),
  };
}
