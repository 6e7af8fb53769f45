import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { algorithmsForKey } from "./algorithms.js";
import { KeySetupError } from "./auth-errors.js";

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * The PEM public keys (SPKI, PKCS#1 or X.509 certificates) in JWT_PUBLIC_KEY or JWT_PUBLIC_KEY_FILE, one or
 * more one after another (a rotation lists the next key beside the current one), each as a KeyObject made
 * once. Text between the blocks is ignored, as OpenSSL does. A bad key is a KeySetupError naming the
 * variable and the key's place in the list.
 */
export function loadPublicKeys(source: {
  JWT_PUBLIC_KEY?: string | undefined;
  JWT_PUBLIC_KEY_FILE?: string | undefined;
}): KeyObject[] {
  const [variable, pem] =
    source.JWT_PUBLIC_KEY_FILE !== undefined
      ? ["JWT_PUBLIC_KEY_FILE", readPem(source.JWT_PUBLIC_KEY_FILE)]
      : // Many deploy tools cannot put newlines in a variable; accept them written as \n.
        ["JWT_PUBLIC_KEY", (source.JWT_PUBLIC_KEY ?? "").replaceAll("\\n", "\n")];
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new KeySetupError(variable, "is not a PEM public key or certificate");
  return blocks.map((block, index) => {
    const which = blocks.length === 1 ? "" : `key ${index + 1} of ${blocks.length} `;
    // createPublicKey would quietly derive the public half of a private key: refuse it, it must not be here.
    if (/PRIVATE KEY-----/.test(block)) {
      throw new KeySetupError(variable, `${which}is a private key; give the identity provider's public key`);
    }
    let key: KeyObject;
    try {
      key = createPublicKey(block);
    } catch {
      throw new KeySetupError(variable, `${which}is not a PEM public key or certificate`);
    }
    if (algorithmsForKey(key).compatible.length === 0) {
      const type = `${key.asymmetricKeyType} keys are not supported; use RSA, RSA-PSS or EC P-256/P-384/P-521`;
      throw new KeySetupError(variable, which === "" ? type : `${which.trim()}: ${type}`);
    }
    return key;
  });
}

function readPem(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new KeySetupError("JWT_PUBLIC_KEY_FILE", `cannot read ${file} (${reason})`);
  }
}
