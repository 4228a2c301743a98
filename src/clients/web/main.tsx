import { createRoot } from 'react-dom/client';
import { App, type DashboardConfig } from './app.tsx';
import { dashboardKey, ticketSource } from './page-key.ts';
import './styles.css';

/** Reads which servers to show (/config.json, written by the server that serves this page), then renders. */
async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root') as HTMLElement);
  const key = dashboardKey();
  let config: DashboardConfig;
  try {
    const response = await fetch('config.json', {
      cache: 'no-store',
      ...(key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } }),
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new Error(body.message ?? `config.json: HTTP ${response.status}`);
    }
    config = (await response.json()) as DashboardConfig;
  } catch (error) {
    root.render(
      <p className="empty">Could not read the dashboard's configuration: {(error as Error).message}</p>,
    );
    return;
  }
  const servers = config.servers ?? [];
  root.render(
    <App
      config={{ servers, readonly: config.readonly === true }}
      ticket={ticketSource(
        servers.map((s) => s.url),
        key,
      )}
    />,
  );
}

void main();
