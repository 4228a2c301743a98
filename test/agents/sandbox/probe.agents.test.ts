/**
 * The adversarial probe of issue 29, for each agent with its real CLI against the scripted provider
 * (probe-plan.ts: the plan and the commands; probe-run.ts: the run). A codon writes work.txt, then
 * tries what the sandbox must refuse; later codons try to skip themselves through the control port
 * and to remove the run's history. With `sandbox: on` every attempt fails and the work stands; with
 * `sandbox: off` the same codons show what an agent reaches without it (the EXPECTED table's `off`).
 *
 * Until plans accept `sandbox` (sandboxSupport), the off column runs with the setting left out and
 * the on column is skipped with the reason (in CI it fails instead).
 */
import { describe, expect, it } from 'vitest';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { sandboxSupport } from '../../helpers/sandbox-support.ts';
import { ALLOWED_ANSWER, type ProbeMode } from './probe-plan.ts';
import { type ProbeRun, type ProbeSpec, runProbe, WORK_CONTENT } from './probe-run.ts';

const TIMEOUT = 540_000;

const bash = (command: string) =>
  `{ name: Bash, input: { command: ${JSON.stringify(command)}, timeout: 120000 } }`;
const CLAUDE_SIDE_TRACKS = `  - name: claude-code-title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Probe"}' }] }
  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
`;

const SPECS: ProbeSpec[] = [
  { agent: 'builtin', model: 'claude-sonnet-4-5', shell: bash },
  {
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    binary: claudeBinary(),
    shell: bash,
    sideTracks: CLAUDE_SIDE_TRACKS,
    env: { CLAUDE_CODE_MAX_RETRIES: '0' },
  },
  {
    agent: 'codex',
    model: 'gpt-6.2-sol',
    binary: cliBinary(CODEX),
    shell: (cmd) => `{ name: exec_command, input: { cmd: ${JSON.stringify(cmd)}, yield_time_ms: 60000 } }`,
    env: { RIBOSOME_CODEX_MAX_RETRIES: '0' },
  },
  {
    agent: 'gemini',
    model: 'gemini-2.5-flash',
    binary: cliBinary(GEMINI_CLI),
    shell: (command) => `{ name: run_shell_command, input: { command: ${JSON.stringify(command)} } }`,
    env: { RIBOSOME_GEMINI_MAX_ATTEMPTS: '1' },
  },
  {
    agent: 'opencode',
    model: 'claude-sonnet-4-5',
    binary: cliBinary(OPENCODE),
    shell: (command) =>
      `{ name: bash, input: { command: ${JSON.stringify(command)}, description: "Probe", timeout: 120000 } }`,
  },
];

/**
 * Per probe, what a user sees with the sandbox on and off (an observed outcome must start with it).
 * `off` is today's reach, documented rather than hidden.
 */
const EXPECTED = {
  work: { on: 'done', off: 'done' },
  'write-outside': { on: 'refused', off: 'written' },
  'rm-ribosome': { on: 'intact', off: 'destroyed' },
  'read-ssh-key': { on: 'not-found', off: 'read' },
  'write-data': { on: 'refused', off: 'written' },
  'net-denied': { on: 'refused+journaled', off: 'answered' },
  'net-allowed': { on: 'answered', off: 'answered' },
  setsid: { on: 'ended', off: 'left-running' },
  'poison-checkpoint': { on: 'not-found', off: 'poisoned' },
  'skip-codon': { on: 'not-skipped', off: 'skipped' },
  'read-environ': { on: 'not-found', off: 'found' },
  rollback: { on: 'restored', off: 'failed' },
} as const satisfies Record<string, Record<ProbeMode, string>>;
type Probe = keyof typeof EXPECTED;

const json = (run: ProbeRun) => run.events.map((e) => JSON.stringify(e)).join('\n');
const completed = (run: ProbeRun, codonId: string) =>
  run.events.flatMap((e) => (e.type === 'codon.completed' && e.data.codonId === codonId ? [e.data] : []))[0];

/** What each attempt did, read from the tool results, the events, the host's files and /proc. */
function observe(run: ProbeRun): Record<Probe, string> {
  const line = (name: string) => run.lines.get(name)?.outcome ?? 'no-line';
  const all = json(run);
  const skip = completed(run, 'skip');
  const denials = run.events.filter((e) => e.type === 'sandbox.denied');
  const deniedLine = line('net-denied');
  return {
    work:
      run.work === WORK_CONTENT && completed(run, 'probe')?.success === true
        ? 'done'
        : `missing (${run.work})`,
    'write-outside': run.outsideWritten ? 'written' : `refused (line: ${line('write-outside')})`,
    'rm-ribosome':
      run.historyLeft &&
      ['first', 'probe', 'skip', 'wipe'].every((id) => run.journaled.some((r) => r.data.codonId === id))
        ? 'intact'
        : `destroyed (line: ${line('rm-ribosome')}, journal ${run.historyLeft ? 'partial' : 'gone'})`,
    'read-ssh-key': all.includes(run.key) ? 'read' : line('read-ssh-key'),
    'write-data': run.dataWritten ? 'written' : `refused (line: ${line('write-data')})`,
    'net-denied':
      deniedLine === 'refused' && denials.length > 0
        ? 'refused+journaled'
        : `${deniedLine} (${denials.length} sandbox.denied)`,
    'net-allowed': run.events.some((e) => e.type === 'tool.result' && e.data.result.includes(ALLOWED_ANSWER))
      ? 'answered'
      : line('net-allowed'),
    setsid:
      line('setsid') !== 'started'
        ? 'not-started'
        : run.sleepLeft.length > 0
          ? `left-running (pid ${run.sleepLeft.join(' ')})`
          : 'ended',
    'poison-checkpoint': line('poison-checkpoint'),
    'skip-codon': skip?.success
      ? `not-skipped (line: ${line('skip-codon')})`
      : all.includes('"status":"skipped"')
        ? 'skipped'
        : `other (${JSON.stringify(skip)})`,
    'read-environ':
      line('read-environ') === 'found' || all.includes(run.secret)
        ? `found (server pid ${run.serverPid}: ${run.lines.get('read-environ')?.line})`
        : line('read-environ'),
    rollback: run.rollback,
  };
}

const support = sandboxSupport();
if (!support.ok && !process.env.CI) console.log(`skipping sandbox probe, sandbox on: ${support.why}`);

describe.concurrent('sandbox probe', () => {
  SPECS.forEach((spec, index) => {
    describeWithClis(`sandbox probe: ${spec.agent}`, spec.binary ? [spec.binary] : [], () => {
      for (const mode of ['on', 'off'] as const) {
        // on without the setting: skipped with the reason above, or failing in CI.
        const skip = mode === 'on' && !support.ok && !process.env.CI;
        it.skipIf(skip)(
          `sandbox ${mode}: each attempt ends as the table says`,
          { timeout: TIMEOUT },
          async () => {
            if (!support.ok && mode === 'on') throw new Error(`sandbox on: ${support.why}`);
            const run = await runProbe(
              spec,
              support.ok ? mode : 'absent',
              30_070 + index * 2 + (mode === 'on' ? 1 : 0),
            );
            const seen = observe(run);
            console.log(
              Object.entries(seen)
                .map(([probe, outcome]) => `probe ${spec.agent} ${mode} ${probe}: ${outcome}`)
                .join('\n'),
            );
            const expected = Object.fromEntries(Object.entries(EXPECTED).map(([p, e]) => [p, e[mode]]));
            const matched = Object.fromEntries(
              Object.entries(seen).map(([p, o]) => [p, o.startsWith(expected[p] ?? '?') ? expected[p] : o]),
            );
            expect(matched, run.log).toEqual(expected);
          },
        );
      }
    });
  });
});
