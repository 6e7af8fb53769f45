import { ErrorSchema, errorCodeName, plantStoreContract } from "@plant-store/contract";

const responses = plantStoreContract.plants.create.responses as Record<number, { safeParse: (body: unknown) => { success: boolean } }>;

/**
 * Why a response breaks the contract, or undefined when it keeps it: the status is one POST /plants
 * declares (or 404 for another path), the body validates against that status's schema, and an Error's code is a known code whose
 * thousands are the status.
 */
export function contractViolation(status: number, bodyText: string): string | undefined {
  // 404 is the app-wide answer for paths outside the contract, with the same Error body.
  const schema = responses[status] ?? (status === 404 ? ErrorSchema : undefined);
  if (schema === undefined) return `status ${status} is not declared by the contract`;
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return `status ${status} body is not JSON: ${JSON.stringify(bodyText.slice(0, 200))}`;
  }
  if (!schema.safeParse(body).success) return `status ${status} body does not match its schema: ${bodyText.slice(0, 200)}`;
  if (status !== 200) {
    const code = (body as { error: number }).error;
    if (errorCodeName(code) === undefined) return `error code ${code} is not in the contract`;
    if (Math.floor(code / 100) !== status) return `error code ${code} does not belong to status ${status}`;
  }
  return undefined;
}
