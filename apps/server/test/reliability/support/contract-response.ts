import { contractViolation as responseViolation } from "../../../src/edge/response-validation.js";

/**
 * Why a response to POST /plants (or to a path outside the contract) breaks the contract, or undefined when
 * it keeps it: the same check VALIDATE_RESPONSES runs in the server, on the bytes as the client read them.
 */
export function contractViolation(status: number, bodyText: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return `status ${status} body is not JSON: ${JSON.stringify(bodyText.slice(0, 200))}`;
  }
  return responseViolation("POST", "/plants", status, body);
}
