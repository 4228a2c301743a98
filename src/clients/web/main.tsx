import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { BatchApp } from './batch-app.tsx';
import { type DashboardConfig, readConfig } from './config.ts';
import { dashboardKey, jobTicketSource, ticketSource } from './page-key.ts';
import { connectEarly } from './use-dashboard.ts';
import './styles.css';

/**
 * Reads what to show (/config.json, written by the server that serves this page), then renders:
 * a batch's fleet, or the servers it lists.
 */
async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root') as HTMLElement);
  const key = dashboardKey();
  let config: DashboardConfig;
  try {
    config = await readConfig(key);
  } catch (error) {
    root.render(
      <p className="empty">Could not read the dashboard's configuration: {(error as Error).message}</p>,
    );
    return;
  }
  if (config.batch) {
    root.render(
      <BatchApp
        initial={config.batch}
        readonly={config.readonly}
        read={() => readConfig(key)}
        ticket={jobTicketSource(key)}
      />,
    );
    return;
  }
  const ticket = ticketSource(
    config.servers.map((s) => s.url),
    key,
  );
  // The first server's connection (its ticket, upgrade and handshake) while the page renders.
  const first = config.servers[0]?.url;
  if (first) connectEarly(first, config.readonly, ticket);
  root.render(<App config={config} ticket={ticket} />);
}

void main();
