export { App, type AppProps } from './components/app.ts';
export { runApp, type StartTuiOptions, startTui, TUI_EXIT } from './start-tui.ts';
