import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { algorithmsForKey } from "./algorithms.js";
import { KeySetupError } from "../operator-errors.js";

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Where PEM public keys are: in a text (newlines may be written as \n) or a file. */
export type PublicKeySource = { text: string } | { file: string };

/**
 * The PEM public keys (SPKI, PKCS#1 or X.509 certificates) in `source`, one or more one after another (a rotation
 * lists the next key beside the current one), each as a KeyObject made once. Text between the blocks is ignored,
 * as OpenSSL does. A bad key is a KeySetupError naming the key's place in the list.
 */
export function loadPublicKeys(source: PublicKeySource): KeyObject[] {
  const pem =
    "file" in source
      ? readPem(source.file)
      : // Many deploy tools cannot put newlines in a variable; accept them written as \n.
        source.text.replaceAll("\\n", "\n");
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new KeySetupError("is not a PEM public key or certificate");
  return blocks.map((block, index) => {
    const which = blocks.length === 1 ? "" : `key ${index + 1} of ${blocks.length} `;
    // createPublicKey would quietly derive the public half of a private key: refuse it, it must not be here.
    if (/PRIVATE KEY-----/.test(block)) {
      throw new KeySetupError(`${which}is a private key; give the identity provider's public key`);
    }
    let key: KeyObject;
    try {
      key = createPublicKey(block);
    } catch {
      throw new KeySetupError(`${which}is not a PEM public key or certificate`);
    }
    if (algorithmsForKey(key).compatible.length === 0) {
      const type = `${key.asymmetricKeyType} keys are not supported; use RSA, RSA-PSS or EC P-256/P-384/P-521`;
      throw new KeySetupError(which === "" ? type : `${which.trim()}: ${type}`);
    }
    return key;
  });
}

function readPem(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new KeySetupError(`cannot read ${file} (${reason})`);
  }
}
