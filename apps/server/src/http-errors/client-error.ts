import {
  type HttpError,
  MalformedRequestError,
  RequestHeadersTooLargeError,
  RequestTimeoutError,
} from "./http-errors.js";

/** The failure a client caused below Express: Node's parser or its timeouts rejected the connection. */
export function httpErrorForClientError(code: string | undefined): HttpError {
  if (code === "HPE_HEADER_OVERFLOW") return new RequestHeadersTooLargeError();
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return new RequestTimeoutError();
  return new MalformedRequestError();
}
