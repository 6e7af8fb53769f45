import { channel } from "node:diagnostics_channel";

// A request body's way through the server, published for whoever observes it (tracing's "validate body" span):
// read from the socket and parsed (json-body.ts), then checked against the contract by ts-rest before the route
// handler is called. Each message is `{ req }`, plus `error` when refused; with no subscriber nothing is published.

/** The body starts being read. */
export const bodyReadStarted = channel("plant-store:request-body.start");
/** The body could not be read or parsed: `{ req, error }`. */
export const bodyRefused = channel("plant-store:request-body.refused");
/** The contract accepted the body and the route handler has it. */
export const bodyAccepted = channel("plant-store:request-body.accepted");
