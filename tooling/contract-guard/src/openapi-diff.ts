import type { Change, Impact } from "./change.js";
import { deepEqual, dereference, type JsonObject, objectAt } from "./json-document.js";
import { diffSchemas, type SchemaPlace } from "./schema-diff.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Top-level parts that only describe the API; components are compared where operations use them. */
const DESCRIPTIVE = ["info", "servers", "tags", "externalDocs", "openapi", "jsonSchemaDialect"];

/**
 * Every difference between the OpenAPI document of the last release (`before`) and the current one
 * (`after`), in plain words, each classified by whom it breaks.
 */
export function diffOpenApi(before: JsonObject, after: JsonObject): Change[] {
  const changes: Change[] = [];
  const report = (impact: Impact, text: string) => changes.push({ impact, text });

  for (const key of DESCRIPTIVE) {
    if (!deepEqual(before[key], after[key])) report("compatible", `the document's ${key} changed`);
  }
  const securitySchemes = (document: JsonObject) => objectAt(document.components).securitySchemes;
  if (!deepEqual(securitySchemes(before), securitySchemes(after))) {
    report("breaking for existing clients", "the security schemes changed");
  }
  const others = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => ![...DESCRIPTIVE, "paths", "components", "security"].includes(key) && !deepEqual(before[key], after[key]),
  );
  if (others.length > 0) {
    report(
      "breaking for existing clients",
      `${others.join(", ")} changed; this guard does not classify it, so it counts as breaking`,
    );
  }

  const operationsBefore = operationsOf(before);
  const operationsAfter = operationsOf(after);
  for (const [name, operation] of operationsBefore) {
    const next = operationsAfter.get(name);
    if (next)
      changes.push(...diffOperations(name, { document: before, operation }, { document: after, operation: next }));
    else report("breaking for existing clients", `${name} removed`);
  }
  for (const name of operationsAfter.keys()) {
    if (!operationsBefore.has(name)) report("compatible", `${name} added`);
  }
  return changes;
}

interface Side {
  readonly document: JsonObject;
  readonly operation: JsonObject;
}

/** Each operation by its method and path (`POST /plants`), with the path's own parameters and security merged in. */
function operationsOf(document: JsonObject): Map<string, JsonObject> {
  const operations = new Map<string, JsonObject>();
  for (const [path, rawItem] of Object.entries(objectAt(document.paths))) {
    const item = dereference(document, rawItem);
    for (const method of METHODS) {
      if (!(method in item)) continue;
      const operation = objectAt(item[method]);
      operations.set(`${method.toUpperCase()} ${path}`, {
        ...operation,
        security: operation.security ?? document.security,
        parameters: [...arrayAt(item.parameters), ...arrayAt(operation.parameters)],
      });
    }
  }
  return operations;
}

const arrayAt = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Operation keys compared below; a change to any other one counts as breaking, unclassified. */
const OPERATION_KEYS = new Set([
  "summary",
  "description",
  "tags",
  "externalDocs",
  "deprecated",
  "operationId",
  "security",
  "parameters",
  "requestBody",
  "responses",
]);

function diffOperations(name: string, before: Side, after: Side): Change[] {
  const changes: Change[] = [];
  const report = (impact: Impact, text: string) => changes.push({ impact, text: `${name}: ${text}` });
  const a = before.operation;
  const b = after.operation;

  for (const key of ["summary", "description", "tags", "externalDocs"]) {
    if (!deepEqual(a[key], b[key])) report("compatible", `${key} changed`);
  }
  if (!deepEqual(a.deprecated, b.deprecated))
    report("compatible", b.deprecated ? "now deprecated" : "no longer deprecated");
  if (a.operationId !== b.operationId) {
    report(
      "breaking for existing clients",
      `operationId changed from ${a.operationId} to ${b.operationId} (generated clients name methods after it)`,
    );
  }
  if (!deepEqual(a.security, b.security)) {
    const open = arrayAt(b.security).length === 0;
    report(
      open ? "compatible" : "breaking for existing clients",
      open ? "no longer requires authentication" : "security requirements changed",
    );
  }
  const unclassified = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (key) => !OPERATION_KEYS.has(key) && !deepEqual(a[key], b[key]),
  );
  if (unclassified.length > 0) {
    report(
      "breaking for existing clients",
      `${unclassified.join(", ")} changed; this guard does not classify it, so it counts as breaking`,
    );
  }

  changes.push(...diffParameters(name, before, after));
  changes.push(...diffRequestBodies(name, before, after));
  changes.push(...diffResponses(name, before, after));
  return changes;
}

function diffParameters(name: string, before: Side, after: Side): Change[] {
  const changes: Change[] = [];
  const byKey = (side: Side) =>
    new Map(
      arrayAt(side.operation.parameters).map((raw) => {
        const parameter = dereference(side.document, raw);
        return [`${parameter.in} parameter \`${parameter.name}\``, parameter] as const;
      }),
    );
  const from = byKey(before);
  const to = byKey(after);
  for (const [key, parameter] of from) {
    const next = to.get(key);
    if (!next) {
      changes.push({
        impact: "breaking for the server",
        text: `${name}: ${key} removed, which clients of the last release still send`,
      });
      continue;
    }
    if (Boolean(parameter.required) !== Boolean(next.required)) {
      changes.push({
        impact: next.required ? "breaking for existing clients" : "compatible",
        text: `${name}: ${key} is now ${next.required ? "required" : "optional"}`,
      });
    }
    const place: SchemaPlace = { where: `${name} ${key}`, root: "its value", direction: "request", errorCodes: false };
    changes.push(
      ...diffSchemas(
        place,
        { document: before.document, schema: parameter.schema },
        { document: after.document, schema: next.schema },
      ),
    );
  }
  for (const [key, parameter] of to) {
    if (from.has(key)) continue;
    changes.push(
      parameter.required
        ? { impact: "breaking for existing clients", text: `${name}: ${key} added as required` }
        : { impact: "compatible", text: `${name}: optional ${key} added` },
    );
  }
  return changes;
}

function diffRequestBodies(name: string, before: Side, after: Side): Change[] {
  const a = dereference(before.document, before.operation.requestBody);
  const b = dereference(after.document, after.operation.requestBody);
  const had = "content" in a;
  const has = "content" in b;
  if (!had && !has) return [];
  if (!has)
    return [
      {
        impact: "breaking for the server",
        text: `${name}: request body removed, which clients of the last release still send`,
      },
    ];
  if (!had) {
    return [
      b.required
        ? { impact: "breaking for existing clients", text: `${name}: request body added as required` }
        : { impact: "compatible", text: `${name}: optional request body added` },
    ];
  }
  const changes: Change[] = [];
  if (Boolean(a.required) !== Boolean(b.required)) {
    changes.push({
      impact: b.required ? "breaking for existing clients" : "compatible",
      text: `${name}: request body is now ${b.required ? "required" : "optional"}`,
    });
  }
  if (a.description !== b.description)
    changes.push({ impact: "compatible", text: `${name}: request body description changed` });
  changes.push(
    ...diffContent(
      `${name} request body`,
      "request",
      false,
      { document: before.document, content: a.content },
      { document: after.document, content: b.content },
    ),
  );
  return changes;
}

function diffResponses(name: string, before: Side, after: Side): Change[] {
  const changes: Change[] = [];
  const from = objectAt(before.operation.responses);
  const to = objectAt(after.operation.responses);
  for (const status of Object.keys(from)) {
    if (!(status in to))
      changes.push({ impact: "breaking for existing clients", text: `${name}: no longer answers ${status}` });
  }
  for (const status of Object.keys(to)) {
    if (!(status in from)) {
      changes.push({ impact: "compatible", text: `${name}: may now answer ${status}` });
      continue;
    }
    const where = `${name} ${status} response`;
    const a = dereference(before.document, from[status]);
    const b = dereference(after.document, to[status]);
    if (a.description !== b.description) changes.push({ impact: "compatible", text: `${where}: description changed` });
    changes.push(
      ...diffHeaders(
        where,
        { document: before.document, headers: a.headers },
        { document: after.document, headers: b.headers },
      ),
    );
    const errorCodes = status === "default" || /^[45]/.test(status);
    changes.push(
      ...diffContent(
        where,
        "response",
        errorCodes,
        { document: before.document, content: a.content },
        { document: after.document, content: b.content },
      ),
    );
  }
  return changes;
}

function diffHeaders(
  where: string,
  before: { document: JsonObject; headers: unknown },
  after: { document: JsonObject; headers: unknown },
): Change[] {
  const changes: Change[] = [];
  const from = objectAt(before.headers);
  const to = objectAt(after.headers);
  for (const header of Object.keys(from)) {
    if (!(header in to))
      changes.push({ impact: "breaking for existing clients", text: `${where}: header ${header} removed` });
  }
  for (const header of Object.keys(to)) {
    if (!(header in from)) {
      changes.push({ impact: "compatible", text: `${where}: header ${header} added` });
      continue;
    }
    const a = dereference(before.document, from[header]);
    const b = dereference(after.document, to[header]);
    if (a.description !== b.description)
      changes.push({ impact: "compatible", text: `${where}: description of header ${header} changed` });
    if (Boolean(a.required) !== Boolean(b.required)) {
      changes.push({
        impact: b.required ? "compatible" : "breaking for existing clients",
        text: `${where}: header ${header} is now ${b.required ? "always sent" : "optional"}`,
      });
    }
    const place: SchemaPlace = {
      where: `${where} header ${header}`,
      root: "its value",
      direction: "response",
      errorCodes: false,
    };
    changes.push(
      ...diffSchemas(
        place,
        { document: before.document, schema: a.schema },
        { document: after.document, schema: b.schema },
      ),
    );
  }
  return changes;
}

function diffContent(
  where: string,
  direction: SchemaPlace["direction"],
  errorCodes: boolean,
  before: { document: JsonObject; content: unknown },
  after: { document: JsonObject; content: unknown },
): Change[] {
  const changes: Change[] = [];
  const from = objectAt(before.content);
  const to = objectAt(after.content);
  for (const type of Object.keys(from)) {
    if (!(type in to)) {
      changes.push({
        impact: "breaking for existing clients",
        text: `${where}: ${direction === "request" ? "no longer accepts" : "no longer sends"} ${type}`,
      });
    }
  }
  for (const type of Object.keys(to)) {
    if (!(type in from)) {
      changes.push({
        impact: "compatible",
        text: `${where}: ${direction === "request" ? "now also accepts" : "may now send"} ${type}`,
      });
      continue;
    }
    const place: SchemaPlace = {
      where: type === "application/json" ? where : `${where} (${type})`,
      root: "the body",
      direction,
      errorCodes,
    };
    changes.push(
      ...diffSchemas(
        place,
        { document: before.document, schema: objectAt(from[type]).schema },
        { document: after.document, schema: objectAt(to[type]).schema },
      ),
    );
  }
  return changes;
}
