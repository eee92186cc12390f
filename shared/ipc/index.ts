export * from './channels';
export * from './contract';
export * from './limits';
export * from './schemas';
export * from './types';
