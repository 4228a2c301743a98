import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { duplicateBody } from '../../src/proxy/tee.ts';

describe('duplicateBody', () => {
  it('gives the same bytes to the agent and the inspector', async () => {
    const source = Readable.from([Buffer.from('event: a\n\n'), Buffer.from('event: b\n\n')]);
    const { response, copy } = duplicateBody({ status: 200, headers: {}, body: source });
    const [forAgent, inspected] = await Promise.all([text(response.body as Readable), text(copy)]);
    expect(forAgent).toBe('event: a\n\nevent: b\n\n');
    expect(inspected).toBe(forAgent);
  });

  it('does not stall the agent when the inspector never reads', async () => {
    const big = Buffer.alloc(256 * 1024, 1);
    const { response } = duplicateBody({ status: 200, headers: {}, body: Readable.from([big, big]) });
    const forAgent = await text(response.body as Readable);
    expect(forAgent.length).toBe(512 * 1024);
  });

  it('passes a failure of the source to both copies', async () => {
    const source = new PassThrough();
    const { response, copy } = duplicateBody({ status: 200, headers: {}, body: source });
    const agentDone = text(response.body as Readable);
    const copyDone = text(copy);
    source.write('partial');
    source.destroy(new Error('reset'));
    await expect(agentDone).rejects.toThrow('reset');
    await expect(copyDone).rejects.toThrow('reset');
  });

  it('wraps a string body in a readable copy and leaves the response as it was', async () => {
    const original = { status: 200, headers: {}, body: 'plain' };
    const { response, copy } = duplicateBody(original);
    expect(response).toBe(original);
    expect(await text(copy)).toBe('plain');
  });
});
