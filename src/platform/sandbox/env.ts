import type { SandboxLaunch } from './launch.ts';

/** Where a sandboxed process finds the network gate's listener, for a gated network. */
export const proxyUrl = (port: number): string => `http://127.0.0.1:${port}`;

/**
 * A sandboxed process's environment: `env` with TMPDIR on the sandbox's private /tmp (the host's
 * TMPDIR is not there), and for a gated network every client's proxy variables on the gate's
 * listener. NO_PROXY goes: loopback inside is the gate itself, so nothing should bypass it, and a
 * client that went direct would only meet a closed port. NODE_USE_ENV_PROXY makes Node's own fetch
 * honour them (Node 24). ALL_PROXY goes too: a SOCKS proxy of the host is unreachable inside. Pure.
 */
export function sandboxEnv(launch: SandboxLaunch, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env, TMPDIR: '/tmp' };
  if (launch.network.kind === 'open') return result;
  for (const name of ['NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy']) delete result[name];
  const proxy = proxyUrl(launch.network.port);
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) result[name] = proxy;
  result.NODE_USE_ENV_PROXY = '1';
  return result;
}
