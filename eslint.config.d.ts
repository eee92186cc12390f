// The shape of LAYERS, for test/lint/layers.test.ts (eslint.config.js is plain JavaScript).
export interface Layer {
  name: string;
  /** Folders (ending in '/') or single modules (no extension), relative to the project. */
  files: string[];
  /** The layers it may import. */
  may: string[];
  why: string;
  packages?: string[];
  packagesWhy?: string;
}
export const LAYERS: Layer[];
declare const config: unknown[];
export default config;
