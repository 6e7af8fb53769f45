/**
 * What a route's OpenAPI operation says beyond its schemas, kept in the route's ts-rest `metadata.docs`:
 * the request body's and each success status's description (error statuses are described by the
 * error-response table).
 */
export interface RouteDocs {
  readonly requestBody?: string;
  /** A request body as JSON (ids as plain numbers), shown by the document and Swagger UI's "Try it out". */
  readonly requestExample?: unknown;
  readonly responses: Readonly<Record<number, string>>;
}
