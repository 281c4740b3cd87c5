// fairdeal-v1 in the browser (and in Node), written from docs/PROTOCOL.md.
//
// Shares no code with the server: SHA-256 and HMAC-SHA256 come from WebCrypto,
// ChaCha20 is the RFC 8439 block function below, and sampling, shuffle and
// layouts follow the specification step by step. No DOM, no import: the
// page, its worker, the released file and Node all load it as it is.

const MASK = 0xffffffff;
const SUITS = ["c", "d", "h", "s"];
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];

export const PROTOCOL = "fairdeal-v1";

/** Game limits, as in the specification. */
export const LIMITS = {
  decks: [1, 8],
  holdem: [2, 22],
  omaha: [2, 11],
};

/** Parses 64 hex characters into 32 bytes, or throws naming the field. */
export function hexToBytes(text, field = "server_seed") {
  const clean = String(text).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(clean)) {
    throw new FairdealError(field, "must be 64 hexadecimal characters (32 bytes)");
  }
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** An input that breaks a rule of the protocol. */
export class FairdealError extends Error {
  constructor(field, rule) {
    super(`${field}: ${rule}`);
    this.field = field;
    this.rule = rule;
  }
}

/** Checks a client seed: 1 to 64 bytes of UTF-8, no control characters. */
export function checkClientSeed(text) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) throw new FairdealError("client_seed", "must not be empty");
  if (bytes.length > 64) {
    throw new FairdealError("client_seed", `must be at most 64 bytes of UTF-8; it is ${bytes.length}`);
  }
  // Unicode category Cc: U+0000–U+001F and U+007F–U+009F.
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) {
    throw new FairdealError("client_seed", "must not contain control characters");
  }
  return bytes;
}

/** Parses a nonce (number or decimal string) into a BigInt in 0..2^64-1. */
export function parseNonce(value) {
  const text = String(value).trim();
  if (!/^[0-9]{1,20}$/.test(text)) {
    throw new FairdealError("nonce", "must be a whole number from 0 to 18446744073709551615");
  }
  const nonce = BigInt(text);
  if (nonce > 18446744073709551615n) {
    throw new FairdealError("nonce", "must be at most 18446744073709551615");
  }
  return nonce;
}

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) {
    throw new Error("this browser does not offer WebCrypto here (open the page over https, localhost or as a file)");
  }
  return c.subtle;
}

/** SHA-256 of the 32 seed bytes, as lowercase hex: the commitment. */
export async function commitment(seedBytes) {
  return bytesToHex(new Uint8Array(await subtle().digest("SHA-256", seedBytes)));
}

/** HMAC-SHA256(key = seed, message = client seed ‖ ":" ‖ decimal nonce). */
export async function roundKey(seedBytes, clientSeed, nonce) {
  const key = await subtle().importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = new TextEncoder().encode(`${clientSeed}:${BigInt(nonce).toString(10)}`);
  return new Uint8Array(await subtle().sign("HMAC", key, message));
}

function rotl(x, n) {
  return ((x << n) | (x >>> (32 - n))) >>> 0;
}

function quarterRound(s, a, b, c, d) {
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 7);
}

/** RFC 8439 §2.3 block function: 16 words, for a 32-byte key, block counter, 96-bit nonce. */
export function chacha20Block(key, counter, nonce = new Uint8Array(12)) {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const nonceView = new DataView(nonce.buffer, nonce.byteOffset, nonce.byteLength);
  const state = new Uint32Array(16);
  state[0] = 0x61707865; state[1] = 0x3320646e; state[2] = 0x79622d32; state[3] = 0x6b206574;
  for (let i = 0; i < 8; i++) state[4 + i] = view.getUint32(4 * i, true);
  state[12] = counter >>> 0;
  for (let i = 0; i < 3; i++) state[13 + i] = nonceView.getUint32(4 * i, true);
  const working = Uint32Array.from(state);
  for (let i = 0; i < 10; i++) {
    quarterRound(working, 0, 4, 8, 12);
    quarterRound(working, 1, 5, 9, 13);
    quarterRound(working, 2, 6, 10, 14);
    quarterRound(working, 3, 7, 11, 15);
    quarterRound(working, 0, 5, 10, 15);
    quarterRound(working, 1, 6, 11, 12);
    quarterRound(working, 2, 7, 8, 13);
    quarterRound(working, 3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) working[i] = (working[i] + state[i]) >>> 0;
  return working;
}

/** The ChaCha20 keystream of a round key, as 32-bit words, counting them. */
export class Keystream {
  constructor(key) {
    this.key = key;
    this.counter = 0;
    this.block = null;
    this.index = 16;
    this.wordsRead = 0;
  }

  nextWord() {
    if (this.index === 16) {
      this.block = chacha20Block(this.key, this.counter);
      this.counter += 1;
      this.index = 0;
    }
    this.wordsRead += 1;
    return this.block[this.index++];
  }

  /** Lemire's multiply-and-reject: an integer in 0..bound, bound in 2..2^32. */
  uniform(bound) {
    const b = BigInt(bound);
    const threshold = ((1n << 32n) - b) % b;
    for (;;) {
      const m = BigInt(this.nextWord()) * b;
      if ((m & 0xffffffffn) >= threshold) return Number(m >> 32n);
    }
  }
}

/** The unshuffled shoe: copy after copy, suits c d h s, ranks 2..A. */
export function freshDeck(decks) {
  const one = [];
  for (const suit of SUITS) for (const rank of RANKS) one.push(rank + suit);
  const deck = [];
  for (let i = 0; i < decks; i++) deck.push(...one);
  return deck;
}

function whole(value, field) {
  if (value === undefined || value === null || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new FairdealError(field, "must be a whole number");
  }
  return n;
}

/** Validates a game `{type, players?, cards?, decks?}` and fills defaults. */
export function normaliseGame(game) {
  const type = game && game.type;
  const players = whole(game.players, "game.players");
  const cards = whole(game.cards, "game.cards");
  const decks = whole(game.decks, "game.decks");
  const range = (field, value, [min, max]) => {
    if (value < min || value > max) throw new FairdealError(`game.${field}`, `must be ${min} to ${max}; got ${value}`);
  };
  const refuse = (field, value) => {
    if (value !== undefined) throw new FairdealError(`game.${field}`, `${type} does not take ${field}`);
  };
  const need = (field, value) => {
    if (value === undefined) throw new FairdealError(`game.${field}`, `${type} needs ${field}`);
    return value;
  };
  switch (type) {
    case "deck": {
      refuse("players", players); refuse("cards", cards);
      const d = decks ?? 1; range("decks", d, LIMITS.decks);
      return { type, decks: d };
    }
    case "holdem":
    case "omaha": {
      refuse("cards", cards); refuse("decks", decks);
      const p = need("players", players); range("players", p, LIMITS[type]);
      return { type, players: p };
    }
    case "hands": {
      const d = decks ?? 1; range("decks", d, LIMITS.decks);
      const available = 52 * d;
      const p = need("players", players); range("players", p, [1, available]);
      const c = need("cards", cards); range("cards", c, [1, available]);
      if (p * c > available) {
        throw new FairdealError("game.cards", `players x cards must be at most 52 x decks = ${available}; got ${p * c}`);
      }
      return { type, players: p, cards: c, decks: d };
    }
    default:
      throw new FairdealError("game.type", "must be one of: deck, holdem, omaha, hands");
  }
}

/** Lays a shuffled deck out for a (normalised) game. */
export function layOut(game, deck) {
  if (game.type === "deck") return { deck };
  const players = game.players;
  const per = game.type === "holdem" ? 2 : game.type === "omaha" ? 4 : game.cards;
  const hands = [];
  for (let p = 0; p < players; p++) {
    const hand = [];
    for (let k = 0; k < per; k++) hand.push(deck[k * players + p]);
    hands.push(hand);
  }
  const h = per * players;
  if (game.type === "hands") return { hands, rest: deck.slice(h) };
  return {
    hands,
    board: [deck[h + 1], deck[h + 2], deck[h + 3], deck[h + 5], deck[h + 7]],
    burns: [deck[h], deck[h + 4], deck[h + 6]],
  };
}

/**
 * Deals one round: `{server_seed_hash, deal}` exactly as the server's
 * `/v1/verify` and `fairdeal replay --json` would.
 */
export async function deal({ serverSeed, clientSeed, nonce, game }) {
  const seed = hexToBytes(serverSeed);
  checkClientSeed(clientSeed);
  const n = parseNonce(nonce);
  const normal = normaliseGame(game);
  const keystream = new Keystream(await roundKey(seed, clientSeed, n));
  const deck = freshDeck(normal.type === "holdem" || normal.type === "omaha" ? 1 : normal.decks);
  for (let i = deck.length - 1; i >= 1; i--) {
    const j = keystream.uniform(i + 1);
    const swap = deck[i];
    deck[i] = deck[j];
    deck[j] = swap;
  }
  return { server_seed_hash: await commitment(seed), game: normal, deal: layOut(normal, deck) };
}

/** Every card of a deal with its slot name, in a fixed order. */
export function slots(dealt) {
  const out = [];
  if (dealt.deck) dealt.deck.forEach((c, i) => out.push([`deck[${i}]`, c]));
  if (dealt.hands) dealt.hands.forEach((h, s) => h.forEach((c, k) => out.push([`hands[${s}][${k}]`, c])));
  if (dealt.board) dealt.board.forEach((c, i) => out.push([`board[${i}]`, c]));
  if (dealt.burns) dealt.burns.forEach((c, i) => out.push([`burns[${i}]`, c]));
  if (dealt.rest) dealt.rest.forEach((c, i) => out.push([`rest[${i}]`, c]));
  return out;
}

/**
 * Checks a published round: `{server_seed, server_seed_hash, client_seed,
 * nonce, game, deal}`. Returns `{commitment: {ok, computed}, deal: {ok,
 * difference}}`; a failed check is a result, not an exception.
 */
export async function verifyRound(round) {
  const computed = await deal({
    serverSeed: round.server_seed,
    clientSeed: round.client_seed,
    nonce: round.nonce,
    game: round.game,
  });
  const commitmentOk = computed.server_seed_hash === String(round.server_seed_hash).toLowerCase();
  const mine = slots(computed.deal);
  const theirs = slots(round.deal || {});
  let difference = null;
  if (mine.length !== theirs.length || mine.some(([slot], i) => theirs[i][0] !== slot)) {
    difference = { slot: "layout", computed: `${mine.length} cards`, recorded: `${theirs.length} cards` };
  } else {
    const i = mine.findIndex(([, card], k) => theirs[k][1] !== card);
    if (i >= 0) difference = { slot: mine[i][0], computed: mine[i][1], recorded: theirs[i][1] };
  }
  return {
    commitment: { ok: commitmentOk, computed: computed.server_seed_hash },
    deal: { ok: difference === null, difference, computed: computed.deal },
  };
}

/**
 * Whether a deal recomputed from typed values (`dealt`, from deal(); the
 * `clientSeed` and `nonce` it was given) is a published round's:
 * `{ commitment, clientSeed, nonce, game, cards }`, each true or false
 * (`cards` null when the record lists no deal). The server seed matching the
 * commitment proves only the server seed: the cards are the round's only
 * when the client seed, the nonce and the game are the round's too.
 * The client seed is compared exactly, code unit for code unit.
 */
export function sameInputsAsRound(dealt, { clientSeed, nonce }, round) {
  let game = false;
  try {
    game = JSON.stringify(normaliseGame(round.game)) === JSON.stringify(dealt.game);
  } catch {
    game = false; // A record whose game breaks the rules is no game of ours.
  }
  let sameNonce = false;
  try {
    sameNonce = parseNonce(nonce) === parseNonce(round.nonce);
  } catch {
    sameNonce = false;
  }
  const mine = slots(dealt.deal);
  const theirs = round.deal ? slots(round.deal) : null;
  const cards = theirs === null ? null
    : mine.length === theirs.length && mine.every(([slot, card], i) => theirs[i][0] === slot && theirs[i][1] === card);
  return {
    commitment: dealt.server_seed_hash === String(round.server_seed_hash).toLowerCase(),
    clientSeed: typeof clientSeed === "string" && clientSeed === round.client_seed,
    nonce: sameNonce,
    game,
    cards,
  };
}
