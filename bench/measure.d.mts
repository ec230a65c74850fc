export declare const TARGETS: {
  cliOverBareMax: number;
  cliOverBareMaxRawTransfer: number;
  peakRssMiBMax: number;
  endToEndP95MsMax: number;
};
export declare function percentile(values: readonly number[], p: number): number;
export declare function median(values: readonly number[]): number;
export declare function throughput(
  totalMs: number,
  files: number,
  bytes: number,
): { ms: number; filesPerSecond: number; mibPerSecond: number };
export interface TargetVerdict {
  name: string;
  value: number;
  target: string;
  pass: boolean;
}
export declare function checkTargets(measured: {
  cliOverBare: number;
  rawTransfer: boolean;
  peakRssMiB: number;
  endToEndP95Ms: number;
}): TargetVerdict[];
export declare function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string;
export declare function round(value: number, digits?: number): number;
export declare function formatMarkdown(run: unknown): string;
