/** The dashboard's keys, like the TUI's (docs/dashboard.md); one table for the handler and the help. */

export type ViewId = 'overview' | 'activity' | 'changes' | 'cost' | 'fleet';
export const VIEWS: readonly { id: ViewId; label: string; key: string }[] = [
  { id: 'overview', label: 'Overview', key: '1' },
  { id: 'activity', label: 'Activity', key: '2' },
  { id: 'changes', label: 'Changes', key: '3' },
  { id: 'cost', label: 'Cost', key: '4' },
  { id: 'fleet', label: 'Fleet', key: '5' },
];

export type KeyCommand =
  | { kind: 'view'; view: ViewId }
  | {
      kind:
        | 'next'
        | 'skip'
        | 'redo'
        | 'start'
        | 'stop'
        | 'rollback'
        | 'checkpoints'
        | 'follow'
        | 'help'
        | 'close';
    }
  | { kind: 'select'; by: 1 | -1 };

export const KEY_HELP: readonly { keys: string; what: string; control: boolean }[] = [
  { keys: 'n', what: 'start the next codon', control: true },
  { keys: 's', what: 'skip the running codon', control: true },
  { keys: 'r', what: 'redo the last codon', control: true },
  { keys: 'g', what: 'start the selected codon', control: true },
  { keys: 'x', what: 'force stop (asks for a reason)', control: true },
  { keys: 'b', what: 'roll back (pick a target, confirm)', control: true },
  { keys: 'c', what: 'list checkpoints', control: false },
  { keys: '1-5', what: 'overview, activity, changes, cost, fleet', control: false },
  { keys: 'j k / ↑↓', what: 'select a codon', control: false },
  { keys: 'f', what: 'follow the activity (scroll with new rows)', control: false },
  { keys: '?', what: 'show or hide this help', control: false },
  { keys: 'esc', what: 'close a dialog', control: false },
];

/** What a key press asks for; undefined when it is no key of ours (or a control key in readonly). */
export function keyCommand(key: string, readonly: boolean): KeyCommand | undefined {
  const view = VIEWS.find((v) => v.key === key);
  if (view) return { kind: 'view', view: view.id };
  const control: Record<string, KeyCommand> = {
    n: { kind: 'next' },
    s: { kind: 'skip' },
    r: { kind: 'redo' },
    g: { kind: 'start' },
    x: { kind: 'stop' },
    b: { kind: 'rollback' },
  };
  const any: Record<string, KeyCommand> = {
    c: { kind: 'checkpoints' },
    f: { kind: 'follow' },
    '?': { kind: 'help' },
    Escape: { kind: 'close' },
    j: { kind: 'select', by: 1 },
    ArrowDown: { kind: 'select', by: 1 },
    k: { kind: 'select', by: -1 },
    ArrowUp: { kind: 'select', by: -1 },
  };
  if (Object.hasOwn(control, key)) return readonly ? undefined : control[key];
  return Object.hasOwn(any, key) ? any[key] : undefined;
}

/** Input types that take no typed text: keys pressed on them are the app's. */
const NON_TEXT_INPUTS = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'image',
  'file',
  'range',
  'color',
]);

/**
 * Whether a key pressed on this element is typing (so the app leaves it alone): text inputs,
 * textareas and editable content. A checkbox, button or select keeps the app's keys working.
 */
export function isTextEntry(target: {
  tagName: string;
  type?: string;
  isContentEditable?: boolean;
}): boolean {
  if (target.isContentEditable) return true;
  if (target.tagName === 'TEXTAREA') return true;
  if (target.tagName !== 'INPUT') return false;
  return !NON_TEXT_INPUTS.has((target.type ?? 'text').toLowerCase());
}
