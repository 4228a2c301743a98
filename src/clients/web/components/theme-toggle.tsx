import React from 'react';

type Theme = 'auto' | 'light' | 'dark';
const KEY = 'ribosome-theme';
const NEXT: Readonly<Record<Theme, Theme>> = { auto: 'light', light: 'dark', dark: 'auto' };
const WORD: Readonly<Record<Theme, string>> = { auto: '◐ auto', light: '☀ light', dark: '☾ dark' };

function stored(): Theme {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'auto';
  } catch {
    return 'auto';
  }
}

/**
 * Light, dark, or the system's choice (auto): pinned on <html data-theme> (styles.css reads it through
 * color-scheme) and remembered in this browser.
 */
export function ThemeToggle(): React.ReactElement {
  const [theme, setTheme] = React.useState<Theme>(stored);
  React.useEffect(() => {
    const root = document.documentElement;
    if (theme === 'auto') delete root.dataset.theme;
    else root.dataset.theme = theme;
    try {
      if (theme === 'auto') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, theme);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
  }, [theme]);
  return (
    <button
      type="button"
      className="theme-toggle"
      data-testid="theme-toggle"
      title="theme: follow the system, light or dark"
      onClick={() => setTheme((t) => NEXT[t])}
    >
      {WORD[theme]}
    </button>
  );
}
