export * from './channels';
export * from './contract';
export * from './schemas';
export * from './types';
