export * from '../protocol/index.ts';
export * from './ribosome-client.ts';
