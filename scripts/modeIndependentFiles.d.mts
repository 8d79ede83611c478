export declare const modeIndependentE2e: string[];
export declare const modeIndependentInt: string[];
