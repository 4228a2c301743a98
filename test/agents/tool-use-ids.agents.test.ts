/**
 * Every agent's tool calls carry the ids of their results (issue 30 M1), through the real CLIs: the
 * mixed-agents demo plan (one codon per agent: built-in, Claude Code, Codex, Gemini CLI, opencode)
 * on its scripted provider, one server. Each codon's `tool_use` actions name the same ids, in the
 * same tools, as its `tool.result`s, and the terminal UI's store and the dashboard's rows fold the
 * journal to every call done, none running, none ended.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliBinary } from '../../src/agents/cli-binary.ts';
import { AGENT_CLIS } from '../../src/agents/registry/agent-clis.ts';
import { toolCallMark } from '../../src/clients/model/format.ts';
import { foldEvents } from '../../src/clients/model/store/fold-event.ts';
import { initialRunState } from '../../src/clients/model/store/run-state.ts';
import { EMPTY_LOG, foldActivity } from '../../src/clients/web/model/activity-rows.ts';
import { parseServerEvent, type ServerEvent } from '../../src/core/protocol/index.ts';
import { describeWithClis } from '../helpers/agent-clis.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { journalRows, ROOT, runToEnd, tempDir } from '../helpers/server-process.ts';

const AGENTS = ['builtin', 'claude-code', 'codex', 'gemini', 'opencode'];

describeWithClis(
  'tool calls carry the ids of their results, for every agent (e2e)',
  Object.values(AGENT_CLIS).map((c) => cliBinary(c)),
  () => {
    const { temps } = e2eResources();

    it("each codon's tool_use actions and tool.results name the same ids; every view pairs them", async () => {
      const t = tempDir();
      temps.push(t);
      const exec = join(t.path, 'exec');
      // opencode and Gemini CLI take seconds to start; on a loaded machine tens.
      const ran = await runToEnd(
        join(ROOT, 'examples/demo/mixed-agents.yaml'),
        exec,
        join(ROOT, 'examples/scripts/mixed-agents.yaml'),
        [],
        { timeoutMs: 420_000 },
      );
      expect(ran.code, ran.stderr).toBe(0);
      const events = journalRows(exec).flatMap((r) => {
        const parsed = parseServerEvent(JSON.parse(r.json));
        return parsed.ok ? [parsed.event] : [];
      });
      const started = events.flatMap((e) => (e.type === 'codon.started' ? [e.data] : []));
      expect(started.map((d) => d.agent)).toEqual(AGENTS);

      for (const { codonId, agent } of started) {
        const ofCodon = (e: ServerEvent) => 'codonId' in e.data && e.data.codonId === codonId;
        const calls = events.flatMap((e) =>
          e.type === 'assistant.action' && e.data.action === 'tool_use' && ofCodon(e)
            ? [`${e.data.toolName} ${e.data.toolUseId}`]
            : [],
        );
        const results = events.flatMap((e) =>
          e.type === 'tool.result' && ofCodon(e) ? [`${e.data.toolName} ${e.data.toolUseId}`] : [],
        );
        expect(calls.length, `${agent}: ${calls.join(', ')}`).toBeGreaterThan(0);
        expect(
          calls.every((c) => !c.endsWith(' undefined')),
          `${agent}: ${calls.join(', ')}`,
        ).toBe(true);
        expect(new Set(calls).size, agent).toBe(calls.length);
        expect([...results].sort(), agent).toEqual([...calls].sort());
      }

      // The views: every call has its result, in the terminal UI and in the dashboard.
      const state = foldEvents(initialRunState('ws://x'), events);
      const tui = state.activity.flatMap((e) => (e.kind === 'tool' ? [toolCallMark(e).state] : []));
      const web = foldActivity(EMPTY_LOG, events)
        .rows.filter((r) => r.kind === 'tool')
        .map((r) => toolCallMark(r).state);
      expect(tui.length).toBeGreaterThan(AGENTS.length);
      expect(new Set(tui)).toEqual(new Set(['done']));
      expect(web).toEqual(tui);
    }, 480_000);
  },
);
