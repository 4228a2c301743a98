export * from './budget.ts';
export * from './commands.ts';
export * from './echo.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './make-event.ts';
export * from './own.ts';
export * from './shared.ts';
