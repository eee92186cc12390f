// Types for the parts of build-node.mjs that TypeScript code (tests) imports.
export declare const NODE_BUNDLE: string;
export declare function buildNode(outfile?: string): Promise<string>;
