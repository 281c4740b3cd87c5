// fairdeal-table-v1 in the browser (docs/PROTOCOL.md §11): a table's client
// seed from every seat's contribution. Self-contained: WebCrypto's SHA-256
// only, so the page can inline it beside fairdeal-v1.mjs.

const TABLE_DOMAIN = "fairdeal-table-v1";

function tableText(text, what) {
  const bytes = new TextEncoder().encode(text);
  if (typeof text !== "string" || bytes.length < 1 || bytes.length > 64) {
    throw new Error(`${what}: must be 1 to 64 bytes of UTF-8`);
  }
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) {
    throw new Error(`${what}: must not contain control characters`);
  }
  return bytes;
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A seat's commitment: lowercase hex SHA-256 of its contribution. */
export async function contributionCommitment(contribution) {
  return sha256Hex(tableText(contribution, "contribution"));
}

/** The table's client seed from its seat labels and contributions, in seat order. */
export async function tableClientSeed(seats, contributions) {
  if (!Array.isArray(seats) || seats.length < 2 || seats.length > 22) {
    throw new Error("seats: a table has 2 to 22 seats");
  }
  if (new Set(seats).size !== seats.length) throw new Error("seats: labels must be distinct");
  if (!Array.isArray(contributions) || contributions.length !== seats.length) {
    throw new Error("contributions: one per seat");
  }
  const parts = [new TextEncoder().encode(TABLE_DOMAIN), Uint8Array.of(0)];
  seats.forEach((label, seat) => {
    for (const [text, what] of [[label, `seat ${seat} label`], [contributions[seat], `seat ${seat} contribution`]]) {
      const bytes = tableText(text, what);
      parts.push(Uint8Array.of(bytes.length >> 8, bytes.length & 0xff), bytes);
    }
  });
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return sha256Hex(all);
}
