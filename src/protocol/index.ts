export * from './commands.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './make-event.ts';
export * from './shared.ts';
