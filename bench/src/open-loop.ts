// The open loop the overload mode's generators share: requests are sent on schedule whether or not earlier ones
// were answered, each with a client deadline (a request not answered by then is given up and its connection
// closed, as a client with a timeout does). Raw HTTP/1.1 over node:net keeps the generator's cost per request far
// below the server's, so one core drives 4x a capped server. Each generator runs it in a process of its own so its
// CPU never counts against the server.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { percentile } from "./stats.js";

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
  /** Requests that found no idle connection and waited in this generator's pool for one (at its connection limit). */
  waited: number;
  /** 2xx answers that arrived after their deadline (before the sweep, which runs every 5 ms, gave them up). */
  okAfterDeadline: number;
  /**
   * 2xx answered before their deadline and while the phase's schedule ran: goodput's count. Answers in the drain
   * after the schedule would add up to a deadline's worth of a busy server's work to a phase that is no longer sending.
   */
  okInTime: number;
  /** The server's CPU seconds (all threads, /proc) over the phase, and its largest RSS sampled every 100 ms. */
  serverCpuSeconds: number;
  peakRssBytes: number;
  /** Per 250 ms of the phase (by scheduled send time): p99 of the 2xx answers, and misses. */
  windows: { p99Ms: number | undefined; missed: number }[];
}

/** What one open loop sends, to whom, and how many connections it may hold. */
export interface OpenLoopConfig {
  url: URL;
  token: string;
  /** The server's pid, for its CPU and RSS from /proc. */
  pid: number;
  firstId: number;
  deadlineMs: number;
  phases: { rate: number; seconds: number }[];
  /** The most connections open at once; a request that finds none idle waits (oldest first) for one. */
  maxConnections: number;
  /** Send each request's remaining time in `x-envoy-expected-rq-timeout-ms`, as Envoy does upstream. */
  deadlineHeader: boolean;
}

const WINDOW_MS = 250;
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

/** Parses `rate:seconds,rate:seconds,...`. */
export function parsePhases(text: string): OpenLoopConfig["phases"] {
  return text.split(",").map((phase) => {
    const [rate, seconds] = phase.split(":").map(Number);
    return { rate: rate!, seconds: seconds! };
  });
}

function emptyResult({ rate, seconds }: { rate: number; seconds: number }): PhaseResult {
  return {
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
    waited: 0,
    okAfterDeadline: 0,
    okInTime: 0,
    serverCpuSeconds: 0,
    peakRssBytes: 0,
    windows: Array.from({ length: Math.ceil((seconds * 1000) / WINDOW_MS) }, () => ({ p99Ms: undefined, missed: 0 })),
  };
}

/** One open loop over its phases; `run()` resolves with each phase's figures once the last deadline has passed. */
export class OpenLoop {
  readonly #results: PhaseResult[];
  readonly #windowLatencies: number[][][];
  readonly #phaseStarts: number[] = [];
  readonly #totalMs: number;
  /** The n-th request overall falls in the phase whose cumulative count first exceeds n. */
  readonly #counts: number[];
  readonly #head: string;
  readonly #idle: Connection[] = [];
  #open = 0;
  readonly #waiting: Pending[] = [];
  // Every request in scheduled order, for the deadline sweep (answered ones are skipped).
  #inFlight: Pending[] = [];
  #inFlightHead = 0;
  #nextId: number;
  #started = 0;
  #scheduled = 0;
  #phase = 0;
  #phaseCpuStart = 0;
  readonly #config: OpenLoopConfig;

  constructor(config: OpenLoopConfig) {
    this.#config = config;
    const { url, token, phases, firstId } = config;
    this.#results = phases.map(emptyResult);
    this.#windowLatencies = this.#results.map((r) => r.windows.map((): number[] => []));
    let at = 0;
    for (const phase of phases) {
      this.#phaseStarts.push(at);
      at += phase.seconds * 1000;
    }
    this.#totalMs = at;
    this.#counts = phases.map((p) => Math.round(p.rate * p.seconds));
    this.#head = `POST /plants HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n`;
    this.#nextId = firstId;
  }

  run(): Promise<PhaseResult[]> {
    const { pid } = this.#config;
    this.#started = performance.now();
    this.#phaseCpuStart = cpuSeconds(pid);
    const rssTimer = setInterval(() => {
      const result = this.#results[this.#phase];
      if (result) result.peakRssBytes = Math.max(result.peakRssBytes, rssBytes(pid));
    }, 100);
    return new Promise((resolve) => {
      const tick = setInterval(() => {
        if (!this.#tick()) return;
        clearInterval(tick);
        clearInterval(rssTimer);
        resolve(this.#finishAll());
      }, TICK_MS);
    });
  }

  /** Sends what is due, sweeps what is late; true once the last request's deadline has passed. */
  #tick(): boolean {
    const now = performance.now();
    const elapsed = now - this.#started;
    const phases = this.#config.phases;
    while (
      this.#phase < phases.length &&
      elapsed >= this.#phaseStarts[this.#phase]! + phases[this.#phase]!.seconds * 1000
    )
      this.#closePhase();
    // Every request due by now, each stamped with the time it was due: a late tick does not lower the rate.
    for (;;) {
      const p = this.#phaseOfRequest(this.#scheduled);
      if (p === undefined) break;
      const dueAt = this.#started + p.dueMs;
      if (dueAt > now) break;
      const request: Pending = {
        scheduledAt: dueAt,
        phase: p.phase,
        body: `{"id":${this.#nextId++},"name":"Monstera","tag":"tropical"}`,
        done: false,
      };
      this.#results[p.phase]!.sent++;
      this.#inFlight.push(request);
      this.#scheduled++;
      this.#dispatch(request);
    }
    this.#sweep(now);
    return elapsed >= this.#totalMs + this.#config.deadlineMs + 100;
  }

  #finishAll(): PhaseResult[] {
    for (const connection of this.#idle) connection.socket.destroy();
    for (const [index, result] of this.#results.entries()) {
      result.windows = result.windows.map((window, w) => ({
        ...window,
        p99Ms: percentile(this.#windowLatencies[index]![w]!, 99),
      }));
    }
    return this.#results;
  }

  #closePhase(): void {
    const cpu = cpuSeconds(this.#config.pid);
    this.#results[this.#phase]!.serverCpuSeconds = cpu - this.#phaseCpuStart;
    this.#phaseCpuStart = cpu;
    this.#phase++;
  }

  // The n-th request overall: its phase and when it is due (ms from the start), evenly spaced within its phase.
  #phaseOfRequest(n: number): { phase: number; dueMs: number } | undefined {
    let before = 0;
    for (const [index, count] of this.#counts.entries()) {
      if (n < before + count)
        return {
          phase: index,
          dueMs: this.#phaseStarts[index]! + ((n - before) * 1000) / this.#config.phases[index]!.rate,
        };
      before += count;
    }
    return undefined;
  }

  #windowOf(request: Pending): number {
    const index = Math.floor((request.scheduledAt - this.#phaseStarts[request.phase]! - this.#started) / WINDOW_MS);
    return Math.max(0, Math.min(this.#results[request.phase]!.windows.length - 1, index));
  }

  #finish(request: Pending, status: number | "error"): void {
    if (request.done) return;
    request.done = true;
    const result = this.#results[request.phase]!;
    const latency = Math.round((performance.now() - request.scheduledAt) * 10) / 10;
    if (status === "error") result.errors++;
    else if (status >= 200 && status < 300) {
      if (latency > this.#config.deadlineMs) result.okAfterDeadline++;
      else if (performance.now() - this.#started < this.#phaseStarts[request.phase]! + result.seconds * 1000)
        result.okInTime++;
      result.okLatenciesMs.push(latency);
      this.#windowLatencies[request.phase]![this.#windowOf(request)]!.push(latency);
    } else {
      result.refusedLatenciesMs.push(latency);
      result.refusedByStatus[status] = (result.refusedByStatus[status] ?? 0) + 1;
    }
  }

  // The next request waiting for a connection whose deadline has not passed (the sweep marks the others done).
  #nextWaiting(): Pending | undefined {
    let next = this.#waiting.shift();
    while (next?.done) next = this.#waiting.shift();
    return next;
  }

  #release(connection: Connection): void {
    connection.current = undefined;
    const next = this.#nextWaiting();
    if (next) this.#send(connection, next);
    else this.#idle.push(connection);
  }

  #onData(connection: Connection, chunk: string): void {
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
      if (request) this.#finish(request, status);
      if (closes) {
        connection.socket.destroy();
        return;
      }
      this.#release(connection);
    }
  }

  #openConnection(first: Pending): void {
    this.#open++;
    this.#results[first.phase]!.connectionsOpened++;
    const { url } = this.#config;
    const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    socket.setEncoding("latin1");
    const connection: Connection = { socket, connected: false, buffer: "", current: undefined };
    socket.once("connect", () => {
      connection.connected = true;
    });
    socket.on("data", (chunk: string) => this.#onData(connection, chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => this.#onClose(connection));
    this.#send(connection, first);
  }

  #onClose(connection: Connection): void {
    this.#open--;
    const request = connection.current;
    connection.current = undefined;
    const index = this.#idle.indexOf(connection);
    if (index !== -1) this.#idle.splice(index, 1);
    if (request && !request.done) this.#finish(request, "error");
    const next = this.#nextWaiting();
    if (next) this.#dispatch(next);
  }

  #send(connection: Connection, request: Pending): void {
    connection.current = request;
    request.connection = connection;
    // The time left when the request leaves the pool, not when it was due: what a proxy tells its upstream.
    const deadline = this.#config.deadlineHeader
      ? `x-envoy-expected-rq-timeout-ms: ${Math.max(1, Math.round(this.#config.deadlineMs - (performance.now() - request.scheduledAt)))}\r\n`
      : "";
    connection.socket.write(`${this.#head}${deadline}Content-Length: ${request.body.length}\r\n\r\n${request.body}`);
  }

  #dispatch(request: Pending): void {
    if (request.done) return;
    const connection = this.#idle.pop();
    if (connection) this.#send(connection, request);
    else if (this.#open < this.#config.maxConnections) this.#openConnection(request);
    else {
      this.#results[request.phase]!.waited++;
      this.#waiting.push(request);
    }
  }

  #sweep(now: number): void {
    while (this.#inFlightHead < this.#inFlight.length) {
      const request = this.#inFlight[this.#inFlightHead]!;
      if (!request.done) {
        if (now - request.scheduledAt < this.#config.deadlineMs) break;
        this.#expire(request);
      }
      this.#inFlightHead++;
    }
    if (this.#inFlightHead > 100_000) {
      this.#inFlight.splice(0, this.#inFlightHead);
      this.#inFlightHead = 0;
    }
  }

  /** The deadline passed unanswered: counted by where the request was, and its connection closed if it was sent. */
  #expire(request: Pending): void {
    request.done = true;
    const result = this.#results[request.phase]!;
    result.missed++;
    result.windows[this.#windowOf(request)]!.missed++;
    const connection = request.connection;
    if (connection === undefined) result.missedWaiting++;
    else if (!connection.connected) result.missedConnecting++;
    else result.missedSent++;
    if (connection?.current === request) {
      connection.current = undefined;
      connection.socket.destroy();
    }
  }
}
