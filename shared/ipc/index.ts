export * from './channels';
export * from './contract';
export * from './limits';
// Types only: the zod schemas stay out of the renderer's bundle (building them at start-up cost
// the first paint tens of milliseconds); the gateway imports './schemas' itself.
export type { ArgsInput, ArgsParsed, ParseResult, Schemas } from './schemas';
export * from './types';
export * from './reach';
