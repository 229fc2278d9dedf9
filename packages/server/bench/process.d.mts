export declare const freePort: () => Promise<number>;
export declare function cpuSeconds(pid: number): number;
export declare function throwawayDatabase(
  env: NodeJS.ProcessEnv,
  prefix: string,
): Promise<{ env: NodeJS.ProcessEnv; target: 'PostgreSQL' | 'embedded PGlite'; cleanup: () => Promise<void> }>;
