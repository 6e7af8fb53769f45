import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { algorithmsForKey } from "./algorithms.js";
import { KeySetupError } from "./auth-errors.js";

/**
 * The PEM public key (SPKI, PKCS#1 or an X.509 certificate) from JWT_PUBLIC_KEY or JWT_PUBLIC_KEY_FILE,
 * as a KeyObject made once. A bad key is a KeySetupError naming the variable.
 */
export function loadPublicKey(source: { JWT_PUBLIC_KEY?: string | undefined; JWT_PUBLIC_KEY_FILE?: string | undefined }): KeyObject {
  const [variable, pem] = source.JWT_PUBLIC_KEY_FILE !== undefined
    ? ["JWT_PUBLIC_KEY_FILE", readPem(source.JWT_PUBLIC_KEY_FILE)]
    : // Many deploy tools cannot put newlines in a variable; accept them written as \n.
      ["JWT_PUBLIC_KEY", (source.JWT_PUBLIC_KEY ?? "").replaceAll("\\n", "\n")];
  // createPublicKey would quietly derive the public half of a private key: refuse it, it must not be here.
  if (/PRIVATE KEY-----/.test(pem)) {
    throw new KeySetupError(variable, `is a private key; give the identity provider's public key`);
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KeySetupError(variable, `is not a PEM public key or certificate`);
  }
  if (algorithmsForKey(key).compatible.length === 0) {
    throw new KeySetupError(variable, `${key.asymmetricKeyType} keys are not supported; use RSA, RSA-PSS or EC P-256/P-384/P-521`,
    );
  }
  return key;
}

function readPem(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new KeySetupError("JWT_PUBLIC_KEY_FILE", `cannot read ${file} (${reason})`);
  }
}
