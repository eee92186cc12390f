// The serve gateway's TLS identity: the certificate and key the person gives (--cert/--key), or a
// self-signed pair generated once by the system's `openssl` and kept in the data folder, so the
// fingerprint clients pinned stays the same across restarts (and after a SIGKILL). Node's crypto
// makes keys but not X.509 certificates, hence openssl (CI installs it, .ci/run).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface TlsIdentity {
  cert: string;
  key: string;
  /** `sha256:<hex>` of the certificate's DER bytes, lowercase, no colons: what clients pin. */
  fingerprint: string;
}

/** The pin of a certificate (PEM or DER): sha256 of its DER form. */
export function fingerprintOf(cert: string | Buffer): string {
  const x = new crypto.X509Certificate(cert);
  return `sha256:${crypto.createHash('sha256').update(x.raw).digest('hex')}`;
}

/** A pin as a person may paste it (`sha256:AB:CD…`, any case) in the printed form; undefined when malformed. */
export function normalizePin(pin: string): string | undefined {
  const hex = pin
    .trim()
    .replace(/^sha256:/i, '')
    .replace(/:/g, '')
    .toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? `sha256:${hex}` : undefined;
}

export function loadTlsIdentity(opts: { dataDir: string; certFile?: string; keyFile?: string }): TlsIdentity {
  if ((opts.certFile === undefined) !== (opts.keyFile === undefined))
    throw new Error('give both --cert FILE and --key FILE, or neither (a self-signed pair is generated)');
  if (opts.certFile && opts.keyFile) return checked(read(opts.certFile), read(opts.keyFile));
  const dir = path.join(opts.dataDir, 'serve');
  const certFile = path.join(dir, 'tls-cert.pem');
  const keyFile = path.join(dir, 'tls-key.pem');
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) generate(dir, certFile, keyFile);
  return checked(read(certFile), read(keyFile));
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** The key must belong to the certificate: a mismatched pair would fail every handshake later. */
function checked(cert: string, key: string): TlsIdentity {
  let x: crypto.X509Certificate;
  try {
    x = new crypto.X509Certificate(cert);
  } catch {
    throw new Error('the certificate is not a PEM X.509 certificate');
  }
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(key);
  } catch {
    throw new Error('the key is not a PEM private key');
  }
  if (!x.checkPrivateKey(privateKey)) throw new Error('the key does not belong to the certificate');
  return { cert, key, fingerprint: fingerprintOf(cert) };
}

function generate(dir: string, certFile: string, keyFile: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written under temporary names and renamed, so a crash never leaves half a pair.
  const tmpCert = `${certFile}.${process.pid}.tmp`;
  const tmpKey = `${keyFile}.${process.pid}.tmp`;
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        tmpKey,
        '-out',
        tmpCert,
        '-days',
        '825',
        '-subj',
        '/CN=Sightline gateway',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 },
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? 'openssl is not installed: install it, or give --cert FILE --key FILE'
        : `openssl could not make a certificate: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`,
    );
  }
  fs.chmodSync(tmpKey, 0o600);
  fs.renameSync(tmpKey, keyFile);
  fs.renameSync(tmpCert, certFile);
}
