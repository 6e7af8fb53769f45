import fc from "fast-check";

/** One generated connection's bytes, and the ids of the plants its well-formed creates would store. */
export interface HostileConnection {
  bytes: Buffer;
  /** The requests as text (bodies cut short), for failure messages. */
  text: string;
}

const CRLF = "\r\n";

/** A create whose name carries its id, so a 200's body tells which plant it stored. */
const plantJson = fc
  .tuple(fc.bigInt({ min: 1n, max: 2n ** 62n }), fc.option(fc.constantFrom("x", "trailing", "")))
  .map(([id, tag]) => `{"id": ${id}, "name": "raw ${id}"${tag === null ? "" : `, "tag": "${tag}"`}}`);

const bodyText = fc.oneof(
  { weight: 4, arbitrary: plantJson },
  { weight: 1, arbitrary: fc.constantFrom("", "{", '{"id": 1}', "null", "x".repeat(300)) },
);

const requestLine = fc.oneof(
  { weight: 8, arbitrary: fc.constant("POST /plants HTTP/1.1") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "POST /plants HTTP/1.0",
      "POST /plants?x=1 HTTP/1.1",
      "POST //plants HTTP/1.1",
      "POST /plants/ HTTP/1.1",
      "POST /PLANTS HTTP/1.1",
      "POST /%70lants HTTP/1.1",
      "GET /plants HTTP/1.1",
      "PUT /plants HTTP/1.1",
      "OPTIONS * HTTP/1.1",
      "POST http://127.0.0.1/plants HTTP/1.1",
      "POST /plants HTTP/2.0",
      "POST /plants HTTP/1.1 x",
      "POST  /plants HTTP/1.1",
      "post /plants HTTP/1.1",
      "POST /plants",
      "BREW /pot HTCPCP/1.0",
      "POST /pl ants HTTP/1.1",
      "\u0000POST /plants HTTP/1.1",
    ),
  },
);

/** How the body is framed: honestly, or in the ways request smuggling and parser bugs are made of. */
type Framing = (body: string) => { headers: string[]; body: string };
const framing: fc.Arbitrary<Framing> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constant<Framing>((body) => ({ headers: [`Content-Length: ${Buffer.byteLength(body)}`], body })),
  },
  {
    weight: 3,
    arbitrary: fc.constant<Framing>((body) => ({
      headers: ["Transfer-Encoding: chunked"],
      body: `${body.length > 0 ? `${Buffer.byteLength(body).toString(16)}${CRLF}${body}${CRLF}` : ""}0${CRLF}${CRLF}`,
    })),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Framing>(
      (body) => ({ headers: [`Content-Length: ${Buffer.byteLength(body)}`, "Transfer-Encoding: chunked"], body }),
      (body) => ({
        headers: [`Content-Length: ${Buffer.byteLength(body)}`, `Content-Length: ${Buffer.byteLength(body) + 1}`],
        body,
      }),
      (body) => ({ headers: [`Content-Length: ${Math.max(0, Buffer.byteLength(body) - 5)}`], body }),
      (body) => ({ headers: ["Content-Length: -1"], body }),
      (body) => ({ headers: ["Content-Length: 1e3"], body }),
      (body) => ({ headers: [`Content-Length:  +${Buffer.byteLength(body)}`], body }),
      (body) => ({ headers: ["Content-Length: 99999999999999999999"], body }),
      (body) => ({ headers: ["Transfer-Encoding: chunked, gzip"], body }),
      (body) => ({ headers: ["Transfer-Encoding: xchunked"], body }),
      (body) => ({
        headers: ["Transfer-Encoding : chunked"],
        body: `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      }),
      (body) => ({ headers: ["Transfer-Encoding: chunked"], body: `zz\r\n${body}\r\n0\r\n\r\n` }),
      (body) => ({
        headers: ["Transfer-Encoding: chunked"],
        body: `${Buffer.byteLength(body).toString(16)};ext=1\r\n${body}\r\n0\r\n\r\n`,
      }),
      (body) => ({
        headers: ["Transfer-Encoding: chunked"],
        body: `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
      }),
      (body) => ({ headers: [], body }),
    ),
  },
);

const odd = fc.constantFrom(
  "X-Folded: a\r\n  continued",
  "X-Bare-LF: a\nX-Other: b",
  "Bad Header: x",
  ": empty-name",
  "X-Nul: a\u0000b",
  "X-Ctl: a\u0001b",
  "X-Latin1: caf\u00e9",
  `X-Long: ${"l".repeat(3000)}`,
  "Content-Type: text/plain",
  "Content-Type: application/json; charset=latin1",
  "Connection: close",
  "Connection: keep-alive, Upgrade",
  "Upgrade: websocket",
  "Expect: 100-continue",
  "Host: second.example",
);

/** Hostile raw connections: one to three requests back to back, each with its framing and odd headers. */
export function hostileConnection(token: string): fc.Arbitrary<HostileConnection> {
  const request = fc
    .record({
      line: requestLine,
      authorized: fc.integer({ min: 0, max: 9 }).map((roll) => roll < 8),
      json: fc.integer({ min: 0, max: 9 }).map((roll) => roll < 8),
      framing,
      body: bodyText,
      odd: fc.array(odd, { maxLength: 2 }),
      lineEnd: fc.integer({ min: 0, max: 19 }).map((roll) => (roll === 0 ? "\n" : CRLF)),
    })
    .map(({ line, authorized, json, framing: frame, body, odd: extra, lineEnd }) => {
      const framed = frame(body);
      const headers = [
        "Host: 127.0.0.1",
        ...(authorized ? [`Authorization: Bearer ${token}`] : []),
        ...(json ? ["Content-Type: application/json"] : []),
        ...framed.headers,
        ...extra,
      ];
      return `${line}${lineEnd}${headers.join(lineEnd)}${lineEnd}${lineEnd}${framed.body}`;
    });
  return fc.array(request, { minLength: 1, maxLength: 3 }).map((requests) => {
    const text = requests.join("");
    return { bytes: Buffer.from(text, "latin1"), text: text.length > 800 ? `${text.slice(0, 800)}…` : text };
  });
}
