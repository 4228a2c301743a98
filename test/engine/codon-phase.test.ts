import { describe, expect, it } from 'vitest';
import {
  type AgentRound,
  activeCodon,
  advance,
  type Gates,
  IDLE,
  messageRefusal,
  type Phase,
  type PhaseEvent,
  type Started,
  stopKindOf,
  stopRefusal,
} from '../../src/engine/codon-phase.ts';
import { RuntimeCodon } from '../../src/plan/index.ts';

const codon = RuntimeCodon.parse({
  id: 'one',
  codonId: 'one',
  index: 0,
  name: 'One',
  agent: 'builtin',
  prompt: 'write it',
  continuation: 'fresh',
  timeoutMs: 60_000,
  env: {},
  rigSetup: [],
  archiveOnSuccess: [],
  outputFiles: [],
  sentinels: [],
  onFailure: {},
  stallTimeoutMs: 60_000,
  verify: [],
  sandbox: { allowWrite: [], readOnly: [], hide: [] },
});

const round = (): AgentRound => ({
  backlog: { count: 0, bytes: 0 },
  send: () => 'live',
  stop: async () => {},
});
const run = round();
const gates: Gates = { abort: new AbortController(), done: Promise.resolve() };
const started: Started = { codon, startedAt: 0 };
const skip = { by: 'skip' as const };
const halt = { by: 'forceStop' as const, reason: 'by a sentinel' };

const phases = {
  idle: IDLE,
  preparing: { phase: 'preparing', codon, abort: new AbortController() },
  'preparing, stopped': { phase: 'preparing', codon, abort: new AbortController(), stop: skip },
  running: { phase: 'running', started, run, spentBefore: { cost: 0, messages: 0 } },
  'running, stopped': { phase: 'running', started, run, spentBefore: { cost: 0, messages: 0 }, stop: halt },
  'agent-ended': { phase: 'agent-ended', started },
  'agent-ended, gates run': { phase: 'agent-ended', started, gates },
  'agent-ended, gates run, stopped': { phase: 'agent-ended', started, gates, stop: halt },
  settled: { phase: 'settled', started },
  'settled, stopped': { phase: 'settled', started, stop: skip },
} satisfies Record<string, Phase>;
type From = keyof typeof phases;

const events = {
  prepare: { type: 'prepare', codon, abort: new AbortController() },
  prepared: { type: 'prepared' },
  stop: { type: 'stop', stop: halt },
  'agent-started': { type: 'agent-started', started, run },
  session: { type: 'session', agentSessionId: 's-1' },
  'agent-exited': { type: 'agent-exited', run },
  'gates-started': { type: 'gates-started', gates },
  'gates-ended': { type: 'gates-ended', gates },
  'round-started': { type: 'round-started', run: round(), spentBefore: { cost: 1.5, messages: 4 } },
  settled: { type: 'settled' },
  finished: { type: 'finished' },
} satisfies Record<string, PhaseEvent>;
type On = keyof typeof events;

/** Every change of phase there is; any other (phase, event) does not apply. */
const allowed: Array<[From, On, Phase['phase']]> = [
  ['idle', 'prepare', 'preparing'],
  ['idle', 'agent-started', 'running'],
  ['preparing', 'prepared', 'idle'],
  ['preparing', 'stop', 'preparing'],
  ['preparing, stopped', 'prepared', 'idle'],
  ['running', 'stop', 'running'],
  ['running', 'session', 'running'],
  ['running', 'agent-exited', 'agent-ended'],
  ['running', 'settled', 'settled'],
  ['running', 'finished', 'idle'],
  ['running, stopped', 'session', 'running'],
  ['running, stopped', 'agent-exited', 'agent-ended'],
  ['running, stopped', 'settled', 'settled'],
  ['running, stopped', 'finished', 'idle'],
  ['agent-ended', 'stop', 'agent-ended'],
  ['agent-ended', 'gates-started', 'agent-ended'],
  ['agent-ended', 'round-started', 'running'],
  ['agent-ended', 'settled', 'settled'],
  ['agent-ended', 'finished', 'idle'],
  ['agent-ended, gates run', 'stop', 'agent-ended'],
  ['agent-ended, gates run', 'gates-ended', 'agent-ended'],
  ['agent-ended, gates run', 'settled', 'settled'],
  ['agent-ended, gates run', 'finished', 'idle'],
  ['agent-ended, gates run, stopped', 'gates-ended', 'agent-ended'],
  ['agent-ended, gates run, stopped', 'settled', 'settled'],
  ['agent-ended, gates run, stopped', 'finished', 'idle'],
  ['settled', 'stop', 'settled'],
  ['settled', 'finished', 'idle'],
  ['settled, stopped', 'finished', 'idle'],
];

describe('advance (the codon lifecycle phase machine)', () => {
  const table = (Object.keys(phases) as From[]).flatMap((from) =>
    (Object.keys(events) as On[]).map((on) => ({
      from,
      on,
      to: allowed.find(([f, e]) => f === from && e === on)?.[2] ?? 'does not apply',
    })),
  );
  it.each(table)('$from, on $on: $to', ({ from, on, to }) => {
    expect(advance(phases[from], events[on])?.phase ?? 'does not apply').toBe(to);
  });

  it('claims a stop once: it stays with the codon through its agent, its gates and its settling', () => {
    let phase: Phase | undefined = phases.running;
    phase = advance(phase, { type: 'stop', stop: skip });
    expect(phase && advance(phase, { type: 'stop', stop: halt })).toBeUndefined();
    for (const event of [
      { type: 'agent-exited', run },
      { type: 'gates-started', gates },
      { type: 'gates-ended', gates },
      { type: 'settled' },
    ] satisfies PhaseEvent[]) {
      phase = phase && advance(phase, event);
      expect(phase && stopKindOf(phase)).toBe('skip');
    }
    expect(phase && advance(phase, { type: 'finished' })).toEqual(IDLE);
  });

  it("keeps the agent's session through a feedback round and into the settled codon", () => {
    let phase: Phase | undefined = advance(phases.running, events.session);
    phase = phase && advance(phase, { type: 'agent-exited', run });
    phase = phase && advance(phase, events['round-started']);
    expect(phase).toMatchObject({
      phase: 'running',
      started: { agentSessionId: 's-1' },
      run: events['round-started'].run,
      spentBefore: { cost: 1.5, messages: 4 },
    });
    phase = phase && advance(phase, { type: 'agent-exited', run: events['round-started'].run });
    phase = phase && advance(phase, { type: 'settled' });
    expect(phase).toEqual({ phase: 'settled', started: { ...started, agentSessionId: 's-1' } });
  });

  it("an earlier round's exit, or other gates' end, changes nothing", () => {
    const later = advance(phases['agent-ended'], events['round-started']);
    expect(later && advance(later, { type: 'agent-exited', run })).toBeUndefined();
    const other: Gates = { abort: new AbortController(), done: Promise.resolve() };
    expect(advance(phases['agent-ended, gates run'], { type: 'gates-ended', gates: other })).toBeUndefined();
  });
});

describe('what the phase tells the orchestrator', () => {
  it.each([
    { from: 'idle', active: undefined, stopping: undefined },
    { from: 'preparing', active: 'one', stopping: undefined },
    { from: 'preparing, stopped', active: 'one', stopping: 'skip' },
    { from: 'running, stopped', active: 'one', stopping: 'forceStop' },
    { from: 'settled', active: 'one', stopping: undefined },
  ] satisfies Array<{ from: From; active?: string; stopping?: string }>)(
    '$from: active $active, stopping $stopping',
    ({ from, active, stopping: by }) => {
      expect(activeCodon(phases[from])?.id).toBe(active);
      expect(stopKindOf(phases[from])).toBe(by);
    },
  );

  it.each([
    { from: 'idle', id: 'one', refusal: 'codon one is not running' },
    { from: 'preparing', id: 'one', refusal: 'codon one has not started its agent yet' },
    { from: 'preparing', id: 'two', refusal: 'codon two is not running' },
    { from: 'running', id: 'one', refusal: undefined },
    { from: 'running', id: 'two', refusal: 'codon two is not running' },
    { from: 'running, stopped', id: 'one', refusal: 'codon one is already being stopped' },
    { from: 'agent-ended, gates run', id: 'one', refusal: undefined },
    { from: 'settled', id: 'one', refusal: 'codon one has ended (its end is being recorded)' },
    { from: 'settled, stopped', id: 'one', refusal: 'codon one has ended (its end is being recorded)' },
  ] satisfies Array<{ from: From; id: string; refusal?: string }>)(
    'a sentinel stopping $id when $from: $refusal',
    ({ from, id, refusal }) => {
      expect(stopRefusal(phases[from], id)).toBe(refusal);
    },
  );

  it('a sentinel is told a skip is under way in its words', () => {
    const skipped = advance(phases.running, { type: 'stop', stop: skip });
    expect(skipped && stopRefusal(skipped, 'one')).toBe('codon one is already being skipped');
  });

  it.each([
    { from: 'idle', says: 'no codon is running, so no agent takes the message' },
    { from: 'preparing, stopped', says: 'codon one is still preparing (rig setup, its sentinels)' },
    { from: 'running, stopped', says: 'codon one is being stopped; its agent takes no message' },
    { from: 'running', says: 'the agent of codon one has finished its work and takes no more input' },
    { from: 'agent-ended', says: 'has finished its work and takes no more input' },
    { from: 'agent-ended, gates run', says: 'takes no more input (its verification gates run)' },
    { from: 'settled, stopped', says: 'codon one is being stopped' },
  ] satisfies Array<{ from: From; says: string }>)(
    'a message refused when $from says why',
    ({ from, says }) => {
      expect(messageRefusal(phases[from])).toContain(says);
    },
  );
});
