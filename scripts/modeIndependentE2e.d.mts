export declare const modeIndependentE2e: string[];
