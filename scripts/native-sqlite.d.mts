// Types for the parts of native-sqlite.mjs that TypeScript code (tests) imports.
export declare const BINDING_FILE: string;
export declare function nativeDirName(abi: string, platform: string, arch: string): string;
export declare function electronVersion(root: string): string;
export declare function electronAbi(version: string): string;
export declare function headersAbi(nodedir: string): string | undefined;
export declare function addonAbi(file: string): string | undefined;
export declare function nativeTarget(
  root: string,
  opts: { version: string; platform?: string; arch?: string },
): { dir: string; file: string; stamp: string };
export type EnsureResult =
  { ok: true; file: string; built: boolean } | { ok: false; file: string; reason: string };
export declare function ensureElectronSqlite(
  root: string,
  opts?: {
    electronVersion?: string;
    platform?: string;
    arch?: string;
    force?: boolean;
    log?: (line: string) => void;
  },
): Promise<EnsureResult>;
