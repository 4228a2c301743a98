import { describe, expect, it } from 'vitest';
import {
  engineToolName,
  fromCliName,
  GEMINI_NAMING,
  OPENCODE_NAMING,
} from '../../../src/agents/mcp/tool-names.ts';

describe("an MCP tool's name, from the CLI's back to mcp__<server>__<tool>", () => {
  it("Gemini CLI's mcp_<server>_<tool> and opencode's <server>_<tool>", () => {
    expect(fromCliName('mcp_marker_leave_mark', ['marker'], GEMINI_NAMING)).toBe('mcp__marker__leave_mark');
    expect(fromCliName('marker_leave_mark', ['marker'], OPENCODE_NAMING)).toBe('mcp__marker__leave_mark');
  });

  it("a server name holding _ is split at the codon's own names, the longest that fits", () => {
    expect(fromCliName('mcp_my_files_read_file', ['my', 'my_files'], GEMINI_NAMING)).toBe(
      'mcp__my_files__read_file',
    );
    expect(fromCliName('my_read', ['my', 'my_files'], OPENCODE_NAMING)).toBe('mcp__my__read');
  });

  it("the CLI's own tools, and names of no server of the codon, stay as they are", () => {
    expect(engineToolName('run_shell_command', ['marker'], GEMINI_NAMING)).toBe('run_shell_command');
    expect(engineToolName('mcp_other_tool', ['marker'], GEMINI_NAMING)).toBe('mcp_other_tool');
    expect(engineToolName('todowrite', ['todo'], OPENCODE_NAMING)).toBe('todowrite');
    expect(engineToolName('marker_', ['marker'], OPENCODE_NAMING)).toBe('marker_');
    expect(engineToolName('marker_leave_mark', [], OPENCODE_NAMING)).toBe('marker_leave_mark');
  });
});
