import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../scan/model.js';
import { createLlmJudge } from './llm.js';
import { CONFIDENCE_CEILING, CONFIDENCE_FLOOR, decide, defaultJudges, panelConfidence, runPanel, type Judge } from './panel.js';
import {
  benignCapabilityStatement,
  context,
  finding,
  poisonedDescription,
  sanitisedPathFlow,
  secretInTestFixtures,
  unsanitisedCommandFromWeather,
} from './test-builders.js';

/** A judge with a fixed verdict, to test the vote arithmetic apart from any judge's reasoning. */
function fixed(id: string, verdict: Verdict): Judge {
  return { id, description: `always ${verdict}`, vote: () => ({ judge: id, verdict, reason: `${id} says ${verdict}` }) };
}

function panelOf(...verdicts: Verdict[]): Judge[] {
  return verdicts.map((verdict, index) => fixed(`j${index}`, verdict));
}

const sample = () => finding({ ruleId: 'command-injection', category: 'command-injection', evidence: 'exec(cmd)', confidence: 0.7 });

describe('runPanel consensus', () => {
  const table: Array<[Verdict[], { dismissed: boolean; consensus: Verdict }]> = [
    [['dismiss', 'dismiss', 'confirm'], { dismissed: true, consensus: 'dismiss' }],
    [['dismiss', 'dismiss', 'uncertain'], { dismissed: true, consensus: 'dismiss' }],
    [['dismiss', 'confirm', 'uncertain'], { dismissed: false, consensus: 'uncertain' }],
    [['dismiss', 'uncertain', 'uncertain'], { dismissed: false, consensus: 'uncertain' }],
    [['confirm', 'confirm', 'dismiss'], { dismissed: false, consensus: 'confirm' }],
    [['confirm', 'dismiss'], { dismissed: false, consensus: 'uncertain' }],
    [['dismiss', 'dismiss', 'confirm', 'confirm'], { dismissed: false, consensus: 'uncertain' }],
    [['dismiss', 'dismiss', 'dismiss', 'confirm'], { dismissed: true, consensus: 'dismiss' }],
    // Dismissals lead but without a strict majority: kept, and never labelled 'dismiss' (reports read that as dropped).
    [['dismiss', 'dismiss', 'confirm', 'uncertain'], { dismissed: false, consensus: 'uncertain' }],
    [['confirm', 'confirm', 'uncertain', 'uncertain'], { dismissed: false, consensus: 'uncertain' }],
    [['confirm', 'confirm', 'dismiss', 'uncertain'], { dismissed: false, consensus: 'confirm' }],
    [['confirm', 'confirm', 'confirm'], { dismissed: false, consensus: 'confirm' }],
  ];

  it.each(table)('%j → %j', async (verdicts, expected) => {
    const result = await runPanel([sample()], context(), { judges: panelOf(...verdicts) });
    const judged = expected.dismissed ? result.dismissed : result.findings;
    expect(judged).toHaveLength(1);
    expect(expected.dismissed ? result.findings : result.dismissed).toHaveLength(0);
    expect(judged[0]?.consensus).toBe(expected.consensus);
    expect(judged[0]?.votes?.map((vote) => vote.verdict)).toEqual(verdicts);
    // A panel that cannot agree adds no evidence: never more confident than the rule's prior (fast mode's value).
    if (judged[0]?.consensus === 'uncertain') expect(judged[0].confidence).toBeLessThanOrEqual(sample().confidence);
  });

  it('keeps the input order in both lists and does not mutate the input', async () => {
    const findings = [1, 2, 3, 4].map((n) => finding({ ruleId: 'r', category: 'secrets', evidence: `e${n}` }));
    const dropEven: Judge = {
      id: 'even',
      description: 'dismisses even evidence',
      vote: (f) => ({ judge: 'even', verdict: Number(f.evidence.slice(1)) % 2 === 0 ? 'dismiss' : 'confirm', reason: 'parity' }),
    };
    const result = await runPanel(findings, context(), { judges: [dropEven] });
    expect(result.findings.map((f) => f.evidence)).toEqual(['e1', 'e3']);
    expect(result.dismissed.map((f) => f.evidence)).toEqual(['e2', 'e4']);
    expect(findings[0]?.votes).toBeUndefined();
    expect(findings[0]?.confidence).toBe(0.7);
  });

  it('turns a judge that throws into an uncertain vote', async () => {
    const broken: Judge = { id: 'broken', description: 'throws', vote: () => { throw new Error('index out of range'); } };
    const result = await runPanel([sample()], context(), { judges: [fixed('a', 'confirm'), broken, fixed('c', 'confirm')] });
    expect(result.findings[0]?.votes?.[1]).toEqual({ judge: 'broken', verdict: 'uncertain', reason: 'The judge failed: index out of range.' });
    expect(result.findings[0]?.consensus).toBe('confirm');
  });

  it('still decides when the LLM judge cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = createLlmJudge({ url: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 2000 });
    const weather = unsanitisedCommandFromWeather();
    const result = await runPanel([weather.finding], weather.context, { judges: [...defaultJudges({}), unreachable] });
    const [kept] = result.findings;
    expect(kept?.votes?.find((vote) => vote.judge === 'llm')).toMatchObject({ verdict: 'uncertain', reason: expect.stringMatching(/no verdict/) });
    expect(kept?.consensus).toBe('confirm');
  });

  it('rejects when the scan was cancelled before it started', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runPanel([sample()], context(), { judges: panelOf('confirm'), signal: controller.signal })).rejects.toThrow();
  });

  it('keeps a finding unchanged in confidence when there are no judges', async () => {
    const result = await runPanel([sample()], context(), { judges: [] });
    expect(result.findings[0]).toMatchObject({ consensus: 'uncertain', confidence: 0.7, votes: [] });
  });
});

describe('confidence', () => {
  it('moves the prior in log-odds: +1 per confirm, −1 per dismiss, −0.25 per uncertain', () => {
    expect(panelConfidence(0.5, 1, 0, 0)).toBe(0.73);
    expect(panelConfidence(0.5, 0, 1, 0)).toBe(0.27);
    expect(panelConfidence(0.7, 3, 0, 0)).toBe(0.98);
    expect(panelConfidence(0.7, 2, 0, 1)).toBe(0.93);
    expect(panelConfidence(0.7, 1, 1, 1)).toBe(0.65);
    expect(panelConfidence(0.7, 0, 0, 0)).toBe(0.7);
  });

  it('stays within 0.05..0.99 whatever the votes and prior', () => {
    expect(panelConfidence(0.99, 10, 0, 0)).toBe(CONFIDENCE_CEILING);
    expect(panelConfidence(0.05, 0, 10, 0)).toBe(CONFIDENCE_FLOOR);
    expect(panelConfidence(1, 0, 0, 0)).toBe(CONFIDENCE_CEILING);
    expect(panelConfidence(0, 0, 0, 0)).toBe(CONFIDENCE_FLOOR);
    expect(panelConfidence(Number.NaN, 0, 0, 0)).toBe(0.5);
    for (let confirms = 0; confirms <= 4; confirms += 1) {
      for (let dismisses = 0; dismisses <= 4; dismisses += 1) {
        const value = panelConfidence(0.6, confirms, dismisses, 4 - Math.min(4, confirms + dismisses));
        expect(value).toBeGreaterThanOrEqual(CONFIDENCE_FLOOR);
        expect(value).toBeLessThanOrEqual(CONFIDENCE_CEILING);
      }
    }
  });

  it('gives a dismissed finding its lowered confidence too', () => {
    const { finding: judged, dismissed } = decide(sample(), [
      { judge: 'a', verdict: 'dismiss', reason: 'r' },
      { judge: 'b', verdict: 'dismiss', reason: 'r' },
      { judge: 'c', verdict: 'uncertain', reason: 'r' },
    ]);
    expect(dismissed).toBe(true);
    expect(judged.confidence).toBe(0.2);
  });
});

describe('defaultJudges', () => {
  it('is the three deterministic judges, plus the LLM judge when configured', () => {
    expect(defaultJudges({}).map((judge) => judge.id)).toEqual(['lexical-intent', 'description-behaviour', 'dataflow-reachability']);
    expect(defaultJudges({ SVC_LLM_URL: 'http://127.0.0.1:11434/v1', SVC_LLM_MODEL: 'llama3.1' }).map((judge) => judge.id)).toEqual([
      'lexical-intent',
      'description-behaviour',
      'dataflow-reachability',
      'llm',
    ]);
  });
});

describe('the built-in panel on realistic findings', () => {
  const cases = [
    { scenario: poisonedDescription({ sidenoteIsSent: true }), kept: true, consensus: 'confirm' },
    { scenario: poisonedDescription({ sidenoteIsSent: false }), kept: true, consensus: 'confirm' },
    { scenario: unsanitisedCommandFromWeather(), kept: true, consensus: 'confirm' },
    { scenario: benignCapabilityStatement(), kept: false, consensus: 'dismiss' },
    { scenario: sanitisedPathFlow(), kept: true, consensus: 'uncertain' },
    { scenario: secretInTestFixtures(), kept: true, consensus: 'uncertain' },
  ] as const;

  it.each(cases)('$scenario.name', async ({ scenario, kept, consensus }) => {
    const result = await runPanel([scenario.finding], scenario.context, { judges: defaultJudges({}) });
    const [judged] = kept ? result.findings : result.dismissed;
    expect(judged?.consensus).toBe(consensus);
    expect(judged?.votes).toHaveLength(3);
    for (const vote of judged?.votes ?? []) expect(vote.reason.length).toBeGreaterThan(20);
    if (consensus === 'confirm') expect(judged!.confidence).toBeGreaterThan(scenario.finding.confidence);
    else expect(judged!.confidence).toBeLessThan(scenario.finding.confidence);
  });
});
