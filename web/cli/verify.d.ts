// Types of fairdeal-verify's library entry (cli/verify.mjs).

/** The page's verdict: pass, pass with a warning, fail, or not yet verifiable. */
export type Verdict = "pass" | "warning" | "fail" | "pending";

export interface Check {
  /** The check's name, as the page names it (`deal`, `log`, `commitment in log`, …). */
  name: string;
  /** "pass", "fail", "pending" or "warning"; null for information. */
  result: string | null;
  text: string;
  /** Why it passed or failed, in the page's words (its tooltip); null when the page gives none. */
  detail: string | null;
}

/** The log pins, in the page's own format. */
export interface Pins {
  services: Record<string, { vkey: string; name: string; since: string }>;
  logs: Record<string, { vkey: string; name: string; since: string }>;
}

export interface VerifyOptions {
  /** The service's address, `https://…` (or `http://…`). */
  service: string;
  kind: "round" | "pair" | "draw";
  id: string;
  /** Verifier keys (`name+id+key`) of the logs trusted; none is trusted on first use. */
  logKeys?: string[];
  pins?: Pins | null;
  /** A draw's entrant list, the player's own copy. */
  list?: Uint8Array | null;
  listName?: string;
  /** The witnesses trusted (their verifier keys), as in the page's "Witnesses you trust". */
  witnesses?: string[];
  /** How many of `witnesses` must cosign a checkpoint (all of them when null). */
  quorum?: number | null;
  /** The monitors trusted (their verifier keys), as in the page's "Monitors you trust". */
  monitors?: string[];
  /** What the last call returned as `state`: the log checkpoint seen, pins, what is trusted. */
  state?: Record<string, string> | null;
  /** Milliseconds to let the page look again while entries await their checkpoint (default 0). */
  wait?: number;
}

export interface Answer {
  verdict: Verdict;
  text: string;
  checks: Check[];
  /** What the page would keep in the browser: give it to the next call. */
  state: Record<string, string>;
}

/** One verification per process (the page's modules keep one visit's state). */
export function verify(options: VerifyOptions): Promise<Answer>;
