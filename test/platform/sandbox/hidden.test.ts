import { describe, expect, it } from 'vitest';
import { defaultHidden } from '../../../src/platform/sandbox/hidden.ts';

describe('defaultHidden', () => {
  it("names the user's credentials and shell histories under their home", () => {
    const hidden = defaultHidden('/home/ann');
    for (const path of [
      '.ssh',
      '.aws',
      '.config/gcloud',
      '.azure',
      '.kube',
      '.docker',
      '.netrc',
      '.npmrc',
      '.config/gh',
      '.git-credentials',
      '.bash_history',
      '.zsh_history',
      '.local/share/fish/fish_history',
      '.python_history',
      '.node_repl_history',
      '.psql_history',
      '.mysql_history',
      '.gnupg',
      '.pypirc',
      '.cargo/credentials.toml',
    ])
      expect(hidden).toContain(`/home/ann/${path}`);
    expect(hidden.every((p) => p.startsWith('/home/ann/'))).toBe(true);
  });
});
