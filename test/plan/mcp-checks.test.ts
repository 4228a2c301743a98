import { describe, expect, it } from 'vitest';
import { checkMcpServers } from '../../src/plan/check-mcp.ts';
import { salvagePlan } from '../../src/plan/salvage.ts';
import { loadText, yaml } from './helpers.ts';

/** What `ribosome validate` says of a plan's MCP servers beyond their shape (docs/mcp.md). */

const check = (plan: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  checkMcpServers(salvagePlan({ name: 'x', ...plan }), env).map(({ code, severity, path, message }) => ({
    code,
    severity: severity ?? 'error',
    path: path.join('.'),
    message,
  }));

const codons = (...extra: Array<Record<string, unknown>>) =>
  extra.map((fields, i) => ({ id: `c${i}`, prompt: 'go', ...fields }));

describe('MCP server checks', () => {
  it('warns of each secret variable that is unset here, where it is written', () => {
    const problems = check(
      {
        mcpServers: {
          files: { command: 'node', envFrom: ['SET_ONE', 'UNSET_ONE'] },
          renamed: { command: 'node', envFrom: { TOKEN: 'UNSET_TWO' } },
          single: { command: 'node', envFrom: 'UNSET_THREE' },
          web: {
            url: 'http://127.0.0.1:9/mcp',
            headersFrom: { 'X-Key': 'UNSET_FOUR' },
            bearerTokenFrom: 'EMPTY',
          },
        },
        codons: codons({}),
      },
      { SET_ONE: 'x', EMPTY: '' },
    );
    expect(problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['MCP_SECRET_UNSET', 'warning', 'mcpServers.files.envFrom.1'],
      ['MCP_SECRET_UNSET', 'warning', 'mcpServers.renamed.envFrom.TOKEN'],
      ['MCP_SECRET_UNSET', 'warning', 'mcpServers.single.envFrom'],
      ['MCP_SECRET_UNSET', 'warning', 'mcpServers.web.headersFrom.X-Key'],
      ['MCP_SECRET_UNSET', 'warning', 'mcpServers.web.bearerTokenFrom'],
    ]);
    expect(problems[0]?.message).toBe(
      'MCP server "files" takes UNSET_ONE as a secret (envFrom), and UNSET_ONE is not set here.',
    );
  });

  it("checks a codon's own servers, and not the plan's that no codon keeps", () => {
    const problems = check({
      mcpServers: { gone: { command: 'node', envFrom: 'PLAN_SECRET' } },
      codons: codons(
        { mcpServers: { gone: null } },
        { mcpServers: { gone: { command: 'node', envFrom: 'CODON_SECRET' } } },
      ),
    });
    expect(problems.map((p) => p.path)).toEqual(['codons.1.mcpServers.gone.envFrom']);
  });

  it('an mcpServers entry that no codon uses is fine', () => {
    expect(
      check({ mcpServers: { spare: { command: 'node' } }, codons: codons({ mcpServers: { spare: null } }) }),
    ).toEqual([]);
  });

  it("warns of a codon's null for a server the plan does not have, guessing the name meant", () => {
    const problems = check({
      mcpServers: { search: { url: 'http://127.0.0.1:9/mcp' } },
      codons: [
        { loop: { id: 'l', iterations: 2, codons: codons({ mcpServers: { serch: null, other: null } }) } },
      ],
    });
    expect(problems).toEqual([
      {
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: 'codons.0.loop.codons.0.mcpServers.serch',
        message: 'Codon "c0" removes MCP server "serch", which the plan does not have.',
      },
      {
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: 'codons.0.loop.codons.0.mcpServers.other',
        message: 'Codon "c0" removes MCP server "other", which the plan does not have.',
      },
    ]);
    // A plan's entry that is invalid still has its name: removing it is no mistake.
    expect(
      check({ mcpServers: { bad: { command: '' } }, codons: codons({ mcpServers: { bad: null } }) }),
    ).toEqual([]);
  });

  it('warns of a credential written in the plan: a header or variable named like one, on plan and codon', () => {
    const problems = check({
      mcpServers: {
        web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer abc', Accept: 'x' } },
        files: { command: 'node', env: { GITHUB_TOKEN: 'ghp_x', MODE: 'ro', DB_PASSWORD: 'p' } },
      },
      codons: codons({
        mcpServers: { other: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api-Key': 'k' } } },
      }),
    });
    expect(problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['MCP_SECRET_IN_PLAN', 'warning', 'mcpServers.web.headers.Authorization'],
      ['MCP_SECRET_IN_PLAN', 'warning', 'mcpServers.files.env.GITHUB_TOKEN'],
      ['MCP_SECRET_IN_PLAN', 'warning', 'mcpServers.files.env.DB_PASSWORD'],
      ['MCP_SECRET_IN_PLAN', 'warning', 'codons.0.mcpServers.other.headers.X-Api-Key'],
    ]);
  });

  it('refuses a Gemini CLI codon with servers under agentConfig: user (it would fail at its start)', () => {
    const problems = check({
      agentConfig: 'user',
      agent: 'gemini',
      mcpServers: { files: { command: 'node' } },
      codons: codons(
        {},
        { mcpServers: { files: null } },
        { agent: 'claude-code' },
        { mcpServers: { web: { url: 'http://127.0.0.1:9/mcp' } } },
      ),
    });
    expect(problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['MCP_NOT_SUPPORTED', 'error', 'agentConfig'],
      ['MCP_NOT_SUPPORTED', 'error', 'codons.3.mcpServers'],
    ]);
    expect(
      check({ agent: 'gemini', mcpServers: { files: { command: 'node' } }, codons: codons({}) }),
    ).toEqual([]);
  });

  it('names the rule of a bad server name', async () => {
    const loaded = await loadText(
      yaml('name: x', 'mcpServers:', '  a__b: { command: node }', 'codons:', '  - { id: c, prompt: go }'),
    );
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.problems[0]?.message).toBe('"a__b" is not a valid MCP server name.');
  });

  it('refuses a relative cwd that climbs out of the agent root; inside it or absolute is fine', () => {
    const problems = check({
      mcpServers: {
        up: { command: 'node', cwd: '../tools' },
        sneaky: { command: 'node', cwd: 'tools/../../x' },
        inside: { command: 'node', cwd: 'tools/../bin' },
        absolute: { command: 'node', cwd: '/opt/tools' },
      },
      codons: codons({ mcpServers: { own: { command: 'node', cwd: '..' } } }),
    });
    expect(problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['PATH_ESCAPES', 'error', 'mcpServers.up.cwd'],
      ['PATH_ESCAPES', 'error', 'mcpServers.sneaky.cwd'],
      ['PATH_ESCAPES', 'error', 'codons.0.mcpServers.own.cwd'],
    ]);
  });

  it('validate places each on its line with a hint; a plan whose only problem is an unset secret still loads', async () => {
    const warned = await loadText(
      yaml(
        'name: x',
        'mcpServers:',
        '  files:',
        '    command: node',
        '    envFrom: RIBOSOME_TEST_SURELY_UNSET_SECRET',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    mcpServers:',
        '      nothere: null',
      ),
    );
    expect(warned.ok).toBe(true);
    const warnings = warned.ok ? warned.warnings : [];
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ['MCP_SECRET_UNSET', 5],
      ['FIELD_HAS_NO_EFFECT', 10],
    ]);
    expect(warnings.every((w) => w.hint.length > 0)).toBe(true);

    const refused = await loadText(
      yaml(
        'name: x',
        'mcpServers:',
        '  files:',
        '    command: node',
        '    cwd: ../up',
        'codons:',
        '  - id: a',
        '    prompt: go',
      ),
    );
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.problems.map((p) => [p.code, p.line])).toEqual([['PATH_ESCAPES', 5]]);
  });
});
