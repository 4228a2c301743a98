import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { journalRows, runToEnd, tempDir } from '../../helpers/server-process.ts';

/**
 * No credential ever reaches a log line, a journaled event, a checkpoint, a sentinel's prompt or the
 * proxy's log: a run with a marker key, a sentinel and the proxy on, then everything the execution
 * directory holds is searched for it.
 */

const KEY = `sk-ant-marker-${process.pid}-key`;
const TOKEN = `marker-${process.pid}-bearer`;

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ? files(path) : [path];
  });
}

describe('secrets stay out of everything Ribosome writes', () => {
  it('a marker API key and gateway token appear in no log, event, checkpoint, sentinel prompt or proxy log', async () => {
    const t = tempDir();
    try {
      const plan = `name: secrets
agent: builtin
sentinels:
  watcher:
    model: claude-haiku-4-5
    systemPrompt: You watch an agent.
    userPrompt: "Events: {{events}}"
    trigger: { type: event, eventTypes: [assistant.action] }
codons:
  - id: one
    prompt: Do one.
    env: { EXTRA: plain }
    sentinels: [watcher]
    rigSetup:
      - run: env > rig-env.txt; rm rig-env.txt
`;
      const script = `tracks:
  - name: watcher
    match: { tools: false }
    whenExhausted: { content: [{ text: "Fine." }] }
turns:
${writeTurns('one.txt', 'ok')}`;
      const paths = writePlanAndScript(t.path, plan, script);
      // The proxy takes the main port + 1, which another test may hold by chance: then try again.
      let exec = '';
      let run: Awaited<ReturnType<typeof runToEnd>> | undefined;
      for (
        let attempt = 0;
        attempt < 3 && (!run || /Proxy port \d+ .* already in use/.test(run.stderr));
        attempt++
      ) {
        exec = join(t.path, `exec-${attempt}`);
        run = await runToEnd(paths.plan, exec, paths.script, ['--proxy'], {
          env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: TOKEN, RIBOSOME_LOG_LEVEL: 'debug' },
        });
      }
      if (!run) throw new Error('not run');
      expect(run.code, run.stderr).toBe(0);
      const leaks = (text: string) => text.includes(KEY) || text.includes(TOKEN);

      expect(leaks(run.stdout + run.stderr)).toBe(false);
      // Every event, as journaled (sentinel prompts are in sentinel events and the proxy's logged requests).
      const events = journalRows(exec);
      expect(events.some((e) => e.type === 'sentinel.output')).toBe(true);
      expect(events.filter((e) => leaks(e.json)).map((e) => e.type)).toEqual([]);
      // Every file of the execution directory but the agent's own state (sessions hold no credential either).
      const written = files(join(exec, '.ribosome')).filter(
        (f) => !f.includes(`${join('.ribosome', 'checkpoints.git')}/objects/`),
      );
      expect(written.filter((f) => leaks(readFileSync(f, 'latin1')))).toEqual([]);
      // Every checkpoint's content, unpacked.
      const gitDir = join(exec, '.ribosome', 'checkpoints.git');
      const history = execFileSync('git', ['--git-dir', gitDir, 'log', '--all', '-p', '--format=%H %B'], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(history).toContain('one.txt');
      expect(leaks(history)).toBe(false);
      // What the agent left in its working directory.
      expect(files(join(exec, 'agentRoot')).filter((f) => leaks(readFileSync(f, 'latin1')))).toEqual([]);
    } finally {
      t.remove();
    }
  });
});
