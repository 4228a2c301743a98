/**
 * Changes to files checkpoints leave out (file.updated `ignored`, issue 30 Low "activity noise"): the
 * dashboard's Changes tree and its count leave them out; the terminal UI, the dashboard's activity and
 * the console view show them marked.
 */
import { describe, expect, it } from 'vitest';
import { consoleView } from '../../../src/clients/cli/console-view.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { initialRunState } from '../../../src/clients/model/store/run-state.ts';
import { activityLines } from '../../../src/clients/tui/view/content/activity-lines.ts';
import { initialDashboard, reduceDashboard } from '../../../src/clients/web/model/dashboard.ts';
import { fileTree } from '../../../src/clients/web/model/file-tree.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonStart } from './helpers/events.ts';
import { ev } from './helpers/fake-client.ts';

const changed = (path: string, action: 'created' | 'modified' | 'deleted', ignored?: true): ServerEvent =>
  ev('file.updated', {
    path,
    filename: path.slice(path.lastIndexOf('/') + 1),
    content: action === 'deleted' ? '' : `${path}\n`,
    action,
    ...(ignored ? { ignored } : {}),
  });

const history: ServerEvent[] = [
  ...codonStart('deps', 0),
  changed('kept.txt', 'created'),
  changed('package-lock.json', 'created', true),
  changed('build/out.js', 'created', true),
];

describe('changes to files checkpoints leave out', () => {
  it("are not in the dashboard's Changes tree nor its count", () => {
    const s = reduceDashboard(initialDashboard('ws://x'), { kind: 'events', events: history });
    expect([...s.files.keys()]).toEqual(['kept.txt']);
    expect(fileTree(s.files).children.map((c) => c.name)).toEqual(['kept.txt']);
  });

  it('leave the tree when a file in it comes to be ignored', () => {
    const before = reduceDashboard(initialDashboard('ws://x'), {
      kind: 'events',
      events: [changed('notes.md', 'created')],
    });
    const after = reduceDashboard(before, {
      kind: 'events',
      events: [changed('notes.md', 'modified', true)],
    });
    expect([...before.files.keys()]).toEqual(['notes.md']);
    expect(after.files.size).toBe(0);
  });

  it("are marked in the dashboard's activity", () => {
    const s = reduceDashboard(initialDashboard('ws://x'), { kind: 'events', events: history });
    const rows = Array.from({ length: s.log.rows.length }, (_, i) => s.log.rows.at(i)).filter(
      (r) => r?.kind === 'file',
    );
    expect(rows.map((r) => [r?.text, r?.tone])).toEqual([
      ['created kept.txt', 'info'],
      ['created package-lock.json (ignored: not checkpointed)', 'muted'],
      ['created build/out.js (ignored: not checkpointed)', 'muted'],
    ]);
  });

  it("are marked in the terminal UI's activity", () => {
    const state = foldEvents(initialRunState('ws://x'), history);
    const texts = activityLines(state.activity, { width: 100, expanded: {} })
      .lines.slice()
      .map((l) => l.text);
    expect(texts.filter((t) => t.includes('file '))).toEqual([
      expect.stringMatching(/file +created kept\.txt$/),
      expect.stringMatching(/file +created package-lock\.json \(ignored: not checkpointed\)$/),
      expect.stringMatching(/file +created build\/out\.js \(ignored: not checkpointed\)$/),
    ]);
  });

  it('are marked in the console view (ribosome log)', () => {
    const describe = consoleView();
    expect(history.slice(-3).map((e) => describe(e))).toEqual([
      '    file  created kept.txt',
      '    file  created package-lock.json (ignored: not checkpointed)',
      '    file  created build/out.js (ignored: not checkpointed)',
    ]);
  });
});
