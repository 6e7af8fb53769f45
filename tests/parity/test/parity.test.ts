import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Observed, send } from "../support/exchange.js";
import { type Expected, type Scenario, scenarios, type Step } from "../support/scenarios.js";
import { mswMajor, startFetchFake, startHttpFake, startMsw, startRealServer, type Target } from "../support/targets.js";

let server: Target;
let fakes: Target[] = [];
beforeAll(async () => {
  // The msw 2 project plays only msw; the HTTP and fetch fakes are the same in both projects.
  [server, ...fakes] = await Promise.all([
    startRealServer(),
    ...(mswMajor === 3 ? [startHttpFake(), startFetchFake()] : []),
    startMsw(),
  ]);
});
afterAll(async () => {
  await Promise.all([server, ...fakes].map((target) => target?.stop()));
});

type Outcome = Observed | { statuses: number[] };

async function play(target: Target, scenario: Scenario, scenarioIndex: number): Promise<Outcome[]> {
  // Ids unique to the scenario: the server's store outlives each scenario.
  const id = (n: number) => String(1_000_000 + scenarioIndex * 1000 + n);
  const sendTo = (exchange: Parameters<typeof send>[2]) => send(target.baseUrl, target.token, exchange, target.fetch());
  return target.during(async () => {
    const outcomes: Outcome[] = [];
    for (const step of scenario.steps(id) as Step[]) {
      if ("parallel" in step) {
        const answers = await Promise.all(step.parallel.map(sendTo));
        outcomes.push({ statuses: answers.map((answer) => answer.status).sort() });
      } else {
        outcomes.push(await sendTo(step));
      }
    }
    return outcomes;
  });
}

function summary(outcome: Outcome): Expected {
  if ("statuses" in outcome) return outcome;
  const error = (outcome.body as { error?: unknown }).error;
  return typeof error === "number" ? { status: outcome.status, error } : { status: outcome.status };
}

describe(`the fakes answer as the real server does (${mswMajor === 3 ? "HTTP, fetch, msw 3" : "msw 2"})`, () => {
  it.each(scenarios.map((scenario, index) => [scenario.name, scenario, index] as const))(
    "%s",
    async (_name, scenario, index) => {
      const real = await play(server, scenario, index);
      // The scenario says what the server does, so a scenario that stops testing anything fails here.
      expect(real.map(summary)).toMatchObject(scenario.expected);
      for (const fake of fakes) expect(await play(fake, scenario, index), `${fake.name} differs`).toEqual(real);
    },
  );
});
