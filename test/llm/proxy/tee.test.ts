import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { COPY_OVERFLOW_CODE, duplicateBody } from '../../../src/llm/proxy/tee.ts';

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

  it("drops an inspector's copy that falls too far behind; the agent still gets every byte", async () => {
    const chunk = Buffer.alloc(64 * 1024, 2);
    const source = Readable.from(Array.from({ length: 8 }, () => chunk));
    const { response, copy } = duplicateBody(
      { status: 200, headers: {}, body: source },
      { maxBufferedBytes: 100 * 1024 },
    );
    const dropped = once(copy, 'error');
    const forAgent = await text(response.body as Readable);
    expect(forAgent.length).toBe(8 * 64 * 1024);
    const [error] = (await dropped) as [NodeJS.ErrnoException];
    expect(error.code).toBe(COPY_OVERFLOW_CODE);
  });

  it('a source failure does not crash the proxy when the inspector never listens to its copy', async () => {
    const source = new PassThrough();
    const { response, copy } = duplicateBody({ status: 200, headers: {}, body: source });
    const agentDone = text(response.body as Readable);
    source.write('partial');
    source.destroy(new Error('reset'));
    await expect(agentDone).rejects.toThrow('reset');
    // The copy's error was emitted before this line: unheard, it would have been thrown as uncaught.
    expect(copy.destroyed).toBe(true);
    expect(copy.errored?.message).toBe('reset');
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
