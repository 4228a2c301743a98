import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff, unquote } from '../../../src/execution/checkpoints/parse-diff.ts';
import { checkpointOf, openStore, unwrap, write } from './helpers.ts';

// Real `git diff-tree -p -M` output (core.quotePath=false): a binary, an added file without a final
// newline, a quoted path, a rename with an edit, a deletion of a path with a space, a modification.
const SAMPLE = `diff --git a/b.bin b/b.bin
index 87ae6b6..22f6b3b 100644
Binary files a/b.bin and b/b.bin differ
diff --git a/nn.txt b/nn.txt
new file mode 100644
index 0000000..20cbb4d
--- /dev/null
+++ b/nn.txt
@@ -0,0 +1 @@
+no newline
\\ No newline at end of file
diff --git "a/q\\"uote.txt" "b/q\\"uote.txt"
index bca70f3..d169a2f 100644
--- "a/q\\"uote.txt"
+++ "b/q\\"uote.txt"
@@ -1 +1 @@
-q
+q2
diff --git a/ren.txt b/ren amed.txt
similarity index 94%
rename from ren.txt
rename to ren amed.txt
index 0ff3bbb..d4de868 100644
--- a/ren.txt
+++ b/ren amed.txt\t
@@ -18,3 +18,4 @@
 18
 19
 20
+21
diff --git a/sp ace.txt b/sp ace.txt
deleted file mode 100644
index 3367afd..0000000
--- a/sp ace.txt\t
+++ /dev/null
@@ -1 +0,0 @@
-old
diff --git a/x.txt b/x.txt
index de98044..a7bc997 100644
--- a/x.txt
+++ b/x.txt
@@ -1,3 +1,4 @@
 a
-b
+B
 c
+d
`;

describe('parseUnifiedDiff', () => {
  it('reads each file: path, status, rename source, binary, counts and hunks', () => {
    const { files, truncated } = parseUnifiedDiff(SAMPLE, { maxFiles: 200, cut: false });
    expect(truncated).toBe(false);
    expect(files.map((f) => [f.path, f.status, f.binary, f.additions, f.deletions])).toEqual([
      ['b.bin', 'modified', true, 0, 0],
      ['nn.txt', 'added', false, 1, 0],
      ['q"uote.txt', 'modified', false, 1, 1],
      ['ren amed.txt', 'renamed', false, 1, 0],
      ['sp ace.txt', 'deleted', false, 0, 1],
      ['x.txt', 'modified', false, 2, 1],
    ]);
    expect(files[3]?.oldPath).toBe('ren.txt');
    expect(files[0]?.hunks).toEqual([]);
    expect(files[1]?.hunks).toEqual([
      { oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: [{ kind: 'add', text: 'no newline' }] },
    ]);
    expect(files[5]?.hunks[0]).toEqual({
      oldStart: 1,
      oldLines: 3,
      newStart: 1,
      newLines: 4,
      lines: [
        { kind: 'context', text: 'a' },
        { kind: 'del', text: 'b' },
        { kind: 'add', text: 'B' },
        { kind: 'context', text: 'c' },
        { kind: 'add', text: 'd' },
      ],
    });
    expect(files.some((f) => f.truncated)).toBe(false);
  });

  it('keeps at most maxFiles files and says the answer is truncated', () => {
    const { files, truncated } = parseUnifiedDiff(SAMPLE, { maxFiles: 2, cut: false });
    expect(files.map((f) => f.path)).toEqual(['b.bin', 'nn.txt']);
    expect(truncated).toBe(true);
  });

  it('text cut at the size limit: the partial last line is dropped and its file marked truncated', () => {
    const cutAt = SAMPLE.indexOf('+++ "b/q') + 3;
    const { files, truncated } = parseUnifiedDiff(SAMPLE.slice(0, SAMPLE.indexOf('-b\n') + 1), {
      maxFiles: 200,
      cut: true,
    });
    expect(truncated).toBe(true);
    const last = files.at(-1);
    expect(last?.path).toBe('x.txt');
    expect(last?.truncated).toBe(true);
    expect(last?.hunks[0]?.lines).toEqual([{ kind: 'context', text: 'a' }]);
    expect(files.slice(0, -1).every((f) => f.truncated === undefined)).toBe(true);
    expect(parseUnifiedDiff(SAMPLE.slice(0, cutAt), { maxFiles: 200, cut: true }).files.at(-1)).toMatchObject(
      { path: 'q"uote.txt', hunks: [], truncated: true },
    );
  });

  it('keeps at most maxLines hunk lines: the file cut and the answer are marked truncated', () => {
    const { files, truncated } = parseUnifiedDiff(SAMPLE, { maxFiles: 200, maxLines: 3, cut: false });
    expect(truncated).toBe(true);
    expect(files.map((f) => [f.path, f.hunks.flatMap((h) => h.lines).length, f.truncated])).toEqual([
      ['b.bin', 0, undefined],
      ['nn.txt', 1, undefined],
      ['q"uote.txt', 2, undefined],
      ['ren amed.txt', 0, true],
    ]);
  });

  it('undoes git quoting, octal bytes included', () => {
    expect(unquote('"a\\"b\\\\c\\td"')).toBe('a"b\\c\td');
    expect(unquote('"caf\\303\\251"')).toBe('café');
    expect(unquote('plain name')).toBe('plain name');
  });
});

describe('CheckpointStore.diff', () => {
  it('between two checkpoints: files and hunks, only under a path when asked, unknown SHA not found', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'a.txt', 'one\ntwo\nthree\n');
    write(agentRoot, 'dir/keep.txt', 'k\n');
    const from = unwrap(await store.startRun('r'));
    write(agentRoot, 'a.txt', 'one\nTWO\nthree\n');
    write(agentRoot, 'dir/new file.txt', 'hello\n');
    const to = unwrap(await checkpointOf(store, 'r', 'c1'));
    const diff = unwrap(
      await store.diff(from.sha, to.sha, { contextLines: 0, maxBytes: 1 << 20, maxFiles: 10 }),
    );
    expect(diff.from).toBe(from.sha);
    expect(diff.truncated).toBe(false);
    expect(diff.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['a.txt', 'modified', 1, 1],
      ['dir/new file.txt', 'added', 1, 0],
    ]);
    expect(diff.files[0]?.hunks[0]?.lines).toEqual([
      { kind: 'del', text: 'two' },
      { kind: 'add', text: 'TWO' },
    ]);
    const under = unwrap(
      await store.diff(from.sha.slice(0, 8), to.sha, {
        path: 'dir/',
        contextLines: 3,
        maxBytes: 1 << 20,
        maxFiles: 10,
      }),
    );
    expect(under.files.map((f) => f.path)).toEqual(['dir/new file.txt']);
    const outside = await store.diff(from.sha, to.sha, {
      path: '../x',
      contextLines: 3,
      maxBytes: 1 << 20,
      maxFiles: 10,
    });
    expect(outside.ok ? '' : outside.error.code).toBe('INVALID_INPUT');
    const missing = await store.diff('0123456789abcdef0123456789abcdef01234567', to.sha, {
      contextLines: 3,
      maxBytes: 1 << 20,
      maxFiles: 10,
    });
    expect(missing.ok ? '' : missing.error.code).toBe('CHECKPOINT_NOT_FOUND');
  });

  it('stops reading git past maxBytes and marks the answer and the file it cut truncated', async () => {
    const { store, agentRoot } = await openStore();
    const from = unwrap(await store.startRun('r'));
    const big = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    write(agentRoot, 'big.txt', `${big}\n`);
    write(agentRoot, 'zz.txt', 'after\n');
    const to = unwrap(await checkpointOf(store, 'r', 'c1'));
    const diff = unwrap(
      await store.diff(from.sha, to.sha, { contextLines: 3, maxBytes: 64 * 1024, maxFiles: 10 }),
    );
    expect(diff.truncated).toBe(true);
    expect(diff.files.map((f) => f.path)).toEqual(['big.txt']);
    expect(diff.files[0]?.truncated).toBe(true);
    const shown = diff.files[0]!.hunks[0]!.lines;
    expect(shown.length).toBeGreaterThan(100);
    expect(shown.length).toBeLessThan(20_000);
    expect(shown.reduce((n, l) => n + l.text.length + 2, 0)).toBeLessThanOrEqual(64 * 1024);
    // Within the limit, the same diff is whole.
    const whole = unwrap(
      await store.diff(from.sha, to.sha, { contextLines: 3, maxBytes: 4 << 20, maxFiles: 10 }),
    );
    expect(whole.truncated).toBe(false);
    expect(whole.files.map((f) => [f.path, f.additions])).toEqual([
      ['big.txt', 20_000],
      ['zz.txt', 1],
    ]);
  });
});
