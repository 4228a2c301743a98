import { join } from 'node:path';

/**
 * The user's secrets a sandboxed agent does not see (docs/agents.md#the-sandbox): credentials of
 * ssh, cloud CLIs, registries and git hosts, and shell histories (commands typed with tokens in
 * them). Paths that do not exist are left out when the sandbox is built. Pure.
 */
const SECRETS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.config/gh',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.bash_history',
  '.zsh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
];

/** The secrets under `home` hidden by default, as absolute paths. */
export function defaultHidden(home: string): string[] {
  return SECRETS.map((path) => join(home, path));
}

/**
 * Where the machine keeps the Unix sockets of its services (the Docker daemon, D-Bus, systemd's, the
 * user's session with its ssh and gpg agents): a connect to one needs no network, so a read-only
 * mount does not stop it. With a gated network all of `/run` is hidden (its own loopback needs no
 * resolver); with the network open, the resolver's files under /run stay and the sockets go. Pure.
 */
export function serviceSockets(network: 'gated' | 'open'): string[] {
  // `/var/run` is a link to `/run` on today's systems: hiding `/run` hides both.
  if (network === 'gated') return ['/run'];
  return [
    '/run/user',
    '/run/dbus',
    '/run/docker.sock',
    '/run/docker',
    '/run/containerd',
    '/run/podman',
    '/run/snapd.socket',
    '/run/systemd/private',
    '/run/systemd/journal',
  ];
}
