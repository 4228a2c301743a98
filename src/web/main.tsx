import { createRoot } from 'react-dom/client';
import { App, type DashboardConfig } from './app.tsx';
import './styles.css';

/** Reads which servers to show (/config.json, written by the server that serves this page), then renders. */
async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root') as HTMLElement);
  let config: DashboardConfig;
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
    config = (await response.json()) as DashboardConfig;
  } catch (error) {
    root.render(
      <p className="empty">Could not read the dashboard's configuration: {(error as Error).message}</p>,
    );
    return;
  }
  root.render(<App config={{ servers: config.servers ?? [], readonly: config.readonly === true }} />);
}

void main();
