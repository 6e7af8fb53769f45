import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Observed, send } from "../support/exchange.js";
import { type Expected, type Scenario, scenarios, type Step } from "../support/scenarios.js";
import { startFake, startRealServer, type Target } from "../support/targets.js";

let server: Target;
let fake: Target;
beforeAll(async () => {
  [server, fake] = await Promise.all([startRealServer(), startFake()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), fake?.stop()]);
});

type Outcome = Observed | { statuses: number[] };

async function play(target: Target, scenario: Scenario, scenarioIndex: number): Promise<Outcome[]> {
  // Ids unique to the scenario: the server's store outlives each scenario.
  const id = (n: number) => String(1_000_000 + scenarioIndex * 1000 + n);
  const outcomes: Outcome[] = [];
  for (const step of scenario.steps(id) as Step[]) {
    if ("parallel" in step) {
      const answers = await Promise.all(step.parallel.map((exchange) => send(target.baseUrl, target.token, exchange)));
      outcomes.push({ statuses: answers.map((answer) => answer.status).sort() });
    } else {
      outcomes.push(await send(target.baseUrl, target.token, step));
    }
  }
  return outcomes;
}

function summary(outcome: Outcome): Expected {
  if ("statuses" in outcome) return outcome;
  const error = (outcome.body as { error?: unknown }).error;
  return typeof error === "number" ? { status: outcome.status, error } : { status: outcome.status };
}

describe("the fake answers as the real server does", () => {
  it.each(scenarios.map((scenario, index) => [scenario.name, scenario, index] as const))("%s", async (_name, scenario, index) => {
    const real = await play(server, scenario, index);
    // The scenario says what the server does, so a scenario that stops testing anything fails here.
    expect(real.map(summary)).toMatchObject(scenario.expected);
    const faked = await play(fake, scenario, index);
    expect(faked).toEqual(real);
  });
});
