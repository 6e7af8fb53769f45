// An open-loop load for the overload mode, as its own process so its CPU never counts against the server: requests
// are sent on schedule whether or not earlier ones were answered, each with a client deadline (a request not
// answered by then is given up and its connection closed, as a client with a timeout does). Raw HTTP/1.1 over
// node:net keeps the generator's cost per request far below the server's, so one core drives 4x a capped server.
// argv: <base url> <token> <server pid> <first id> <deadline ms> <phases: rate:seconds,rate:seconds,...>
// Prints one line: OPEN_LOOP_RESULT <json of PhaseResult[]>.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

export interface PhaseResult {
  rate: number;
  seconds: number;
  sent: number;
  /** Answers by status: 2xx latencies and refusal (non-2xx) latencies, in ms from the scheduled send time. */
  okLatenciesMs: number[];
  refusedLatenciesMs: number[];
  refusedByStatus: Record<string, number>;
  /** Requests the deadline passed for unanswered, and of them: never sent (waiting in this generator's pool for a
   * connection), on a connection still connecting (in the server's accept queue or SYN retries), and sent. */
  missed: number;
  missedWaiting: number;
  missedConnecting: number;
  missedSent: number;
  /** Requests whose connection failed (refused, reset) before an answer. */
  errors: number;
  /** Connections this generator opened during the phase (one per request that found none idle). */
  connectionsOpened: number;
  /** The server's CPU seconds (all threads, /proc) over the phase, and its largest RSS sampled every 100 ms. */
  serverCpuSeconds: number;
  peakRssBytes: number;
  /** Per 250 ms of the phase (by scheduled send time): p99 of the 2xx answers, and misses. */
  windows: { p99Ms: number | undefined; missed: number }[];
}

const WINDOW_MS = 250;
const MAX_CONNECTIONS = 4_000;
const TICK_MS = 5;

interface Pending {
  scheduledAt: number;
  phase: number;
  body: string;
  done: boolean;
  connection?: Connection;
}

interface Connection {
  socket: Socket;
  connected: boolean;
  buffer: string;
  current: Pending | undefined;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function main(): void {
  const [baseUrl, token, pidText, firstIdText, deadlineText, phasesText] = process.argv.slice(2);
  if (!baseUrl || !token || !pidText || !firstIdText || !deadlineText || !phasesText) {
    throw new Error(
      "usage: node open-loop-load.js <base url> <token> <server pid> <first id> <deadline ms> <rate:seconds,...>",
    );
  }
  const url = new URL(baseUrl);
  const pid = Number(pidText);
  const deadlineMs = Number(deadlineText);
  let nextId = Number(firstIdText);
  const phases = phasesText.split(",").map((text) => {
    const [rate, seconds] = text.split(":").map(Number);
    return { rate: rate!, seconds: seconds! };
  });
  const results: PhaseResult[] = phases.map(({ rate, seconds }) => ({
    rate,
    seconds,
    sent: 0,
    okLatenciesMs: [],
    refusedLatenciesMs: [],
    refusedByStatus: {},
    missed: 0,
    missedWaiting: 0,
    missedConnecting: 0,
    missedSent: 0,
    errors: 0,
    connectionsOpened: 0,
    serverCpuSeconds: 0,
    peakRssBytes: 0,
    windows: Array.from({ length: Math.ceil((seconds * 1000) / WINDOW_MS) }, () => ({ p99Ms: undefined, missed: 0 })),
  }));
  const windowLatencies = results.map((r) => r.windows.map((): number[] => []));
  const phaseStarts: number[] = [];
  let at = 0;
  for (const phase of phases) {
    phaseStarts.push(at);
    at += phase.seconds * 1000;
  }
  const totalMs = at;

  const head = `POST /plants HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: `;
  const idle: Connection[] = [];
  let open = 0;
  const waiting: Pending[] = [];
  // Every request in scheduled order, for the deadline sweep (answered ones are skipped).
  const inFlight: Pending[] = [];
  let inFlightHead = 0;

  const windowOf = (request: Pending) => {
    const index = Math.floor((request.scheduledAt - phaseStarts[request.phase]! - started) / WINDOW_MS);
    return Math.max(0, Math.min(results[request.phase]!.windows.length - 1, index));
  };

  const finish = (request: Pending, status: number | "error") => {
    if (request.done) return;
    request.done = true;
    const result = results[request.phase]!;
    const latency = Math.round((performance.now() - request.scheduledAt) * 10) / 10;
    if (status === "error") result.errors++;
    else if (status >= 200 && status < 300) {
      result.okLatenciesMs.push(latency);
      windowLatencies[request.phase]![windowOf(request)]!.push(latency);
    } else {
      result.refusedLatenciesMs.push(latency);
      result.refusedByStatus[status] = (result.refusedByStatus[status] ?? 0) + 1;
    }
  };

  // The next request waiting for a connection whose deadline has not passed (the sweep marks the others done).
  const nextWaiting = () => {
    let next = waiting.shift();
    while (next?.done) next = waiting.shift();
    return next;
  };

  const release = (connection: Connection) => {
    connection.current = undefined;
    const next = nextWaiting();
    if (next) send(connection, next);
    else idle.push(connection);
  };

  const onData = (connection: Connection, chunk: string) => {
    connection.buffer += chunk;
    for (;;) {
      const end = connection.buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(connection.buffer.slice(0, end))?.[1] ?? 0);
      if (connection.buffer.length < end + 4 + length) return;
      const status = Number(connection.buffer.slice(9, 12));
      const closes = /\r\nconnection: *close/i.test(connection.buffer.slice(0, end));
      connection.buffer = connection.buffer.slice(end + 4 + length);
      const request = connection.current;
      if (request) finish(request, status);
      if (closes) {
        connection.socket.destroy();
        return;
      }
      release(connection);
    }
  };

  const openConnection = (first: Pending) => {
    open++;
    results[first.phase]!.connectionsOpened++;
    const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    socket.setEncoding("latin1");
    const connection: Connection = { socket, connected: false, buffer: "", current: undefined };
    socket.once("connect", () => {
      connection.connected = true;
    });
    socket.on("data", (chunk: string) => onData(connection, chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      open--;
      const request = connection.current;
      connection.current = undefined;
      const index = idle.indexOf(connection);
      if (index !== -1) idle.splice(index, 1);
      if (request && !request.done) finish(request, "error");
      const next = nextWaiting();
      if (next) dispatch(next);
    });
    send(connection, first);
  };

  const send = (connection: Connection, request: Pending) => {
    connection.current = request;
    request.connection = connection;
    connection.socket.write(`${head}${request.body.length}\r\n\r\n${request.body}`);
  };

  const dispatch = (request: Pending) => {
    if (request.done) return;
    const connection = idle.pop();
    if (connection) send(connection, request);
    else if (open < MAX_CONNECTIONS) openConnection(request);
    else waiting.push(request);
  };

  const sweep = (now: number) => {
    while (inFlightHead < inFlight.length) {
      const request = inFlight[inFlightHead]!;
      if (!request.done) {
        if (now - request.scheduledAt < deadlineMs) break;
        request.done = true;
        const result = results[request.phase]!;
        result.missed++;
        result.windows[windowOf(request)]!.missed++;
        const connection = request.connection;
        if (connection === undefined) result.missedWaiting++;
        else if (!connection.connected) result.missedConnecting++;
        else result.missedSent++;
        if (connection?.current === request) {
          connection.current = undefined;
          connection.socket.destroy();
        }
      }
      inFlightHead++;
    }
    if (inFlightHead > 100_000) {
      inFlight.splice(0, inFlightHead);
      inFlightHead = 0;
    }
  };

  const started = performance.now();
  let scheduled = 0;
  let phase = 0;
  let phaseCpuStart = cpuSeconds(pid);
  const rssTimer = setInterval(() => {
    if (phase < results.length) results[phase]!.peakRssBytes = Math.max(results[phase]!.peakRssBytes, rssBytes(pid));
  }, 100);

  const closePhase = () => {
    const cpu = cpuSeconds(pid);
    results[phase]!.serverCpuSeconds = cpu - phaseCpuStart;
    phaseCpuStart = cpu;
    phase++;
  };

  const tick = setInterval(() => {
    const now = performance.now();
    const elapsed = now - started;
    while (phase < phases.length && elapsed >= phaseStarts[phase]! + phases[phase]!.seconds * 1000) closePhase();
    // Every request due by now, each stamped with the time it was due: a late tick does not lower the rate.
    for (;;) {
      const p = phaseOfRequest(scheduled);
      if (p === undefined) break;
      const dueAt = started + p.dueMs;
      if (dueAt > now) break;
      const request: Pending = {
        scheduledAt: dueAt,
        phase: p.phase,
        body: `{"id":${nextId++},"name":"Monstera","tag":"tropical"}`,
        done: false,
      };
      results[p.phase]!.sent++;
      inFlight.push(request);
      scheduled++;
      dispatch(request);
    }
    sweep(now);
    if (elapsed >= totalMs + deadlineMs + 100) {
      clearInterval(tick);
      clearInterval(rssTimer);
      for (const connection of idle) connection.socket.destroy();
      for (const [index, result] of results.entries()) {
        result.windows = result.windows.map((window, w) => ({
          ...window,
          p99Ms: percentile(windowLatencies[index]![w]!, 99),
        }));
      }
      // Exit only once the line is out: a pipe is written asynchronously.
      process.stdout.write(`OPEN_LOOP_RESULT ${JSON.stringify(results)}\n`, () => process.exit(0));
    }
  }, TICK_MS);

  // The n-th request overall: its phase and when it is due (ms from the start), evenly spaced within its phase.
  const counts = phases.map((p) => Math.round(p.rate * p.seconds));
  function phaseOfRequest(n: number): { phase: number; dueMs: number } | undefined {
    let before = 0;
    for (const [index, count] of counts.entries()) {
      if (n < before + count)
        return { phase: index, dueMs: phaseStarts[index]! + ((n - before) * 1000) / phases[index]!.rate };
      before += count;
    }
    return undefined;
  }
}

main();
