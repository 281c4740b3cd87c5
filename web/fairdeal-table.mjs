// fairdeal-table-v1 in the browser (docs/PROTOCOL.md §11): a table's client
// seed from every seat's contribution, and the checks the verification page
// runs on a table pair's record. Self-contained: WebCrypto's SHA-256 and
// getRandomValues only, no import; no DOM.

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

async function tableSha256Hex(bytes) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A seat's commitment: lowercase hex SHA-256 of its contribution. */
export async function contributionCommitment(contribution) {
  return tableSha256Hex(tableText(contribution, "contribution"));
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
  return tableSha256Hex(all);
}

/**
 * A fresh contribution for a player: 32 bytes from crypto.getRandomValues
 * as 64 lowercase hex characters (64 bytes of UTF-8, the most allowed), and
 * its commitment, the value submitted first.
 */
export async function randomContribution() {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  const contribution = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return { contribution, commitment: await contributionCommitment(contribution) };
}

/** The rule a contribution breaks, or null. */
function tableRuleBroken(text, what) {
  try {
    tableText(text, what);
    return null;
  } catch (error) {
    return error.message;
  }
}

/**
 * Checks a table pair's record: `pair.table.seats` (in seat order, each
 * `{seat, commitment, contribution}`, null when not yet given) against the
 * client seed `pair.client_seed` (for a round, pass the round's client seed
 * there). A failed check is a result, not an exception. Returns
 *
 *   { seats: [{ index, seat, commitment, contribution, computed, status, reason }],
 *     seed: { status, computed, expected, reason },
 *     failed: [indexes of seats whose check failed], waiting: [indexes not revealed] }
 *
 * A seat passes when its revealed contribution keeps the rules and hashes to
 * its commitment; fails when it does not, or was revealed with no
 * commitment; is pending until revealed. The seed passes when
 * tableClientSeed(labels, contributions) equals the client seed; fails when
 * it differs, cannot be derived from revealed values, or a client seed is
 * set while a seat has not revealed; is pending while seats are missing
 * (or when the pair has no client seed, e.g. a void table).
 */
export async function checkTable(pair) {
  const table = pair && pair.table;
  if (!table || !Array.isArray(table.seats)) throw new Error("not a table pair: no table.seats");
  const expected = pair.client_seed ?? null;
  const seats = [];
  for (const [index, s] of table.seats.entries()) {
    const row = {
      index,
      seat: s.seat,
      commitment: s.commitment ?? null,
      contribution: s.contribution ?? null,
      computed: null,
      status: "pending",
      reason: null,
    };
    if (row.contribution === null) {
      row.reason = row.commitment === null ? "not committed yet" : "committed; not revealed yet";
    } else if (typeof row.contribution !== "string") {
      row.status = "fail";
      row.reason = "the revealed contribution is not text";
    } else {
      row.computed = await tableSha256Hex(new TextEncoder().encode(row.contribution));
      const broken = tableRuleBroken(row.contribution, "contribution");
      if (row.commitment === null) {
        row.status = "fail";
        row.reason = "revealed without a commitment: a seat commits before any seat reveals";
      } else if (row.computed !== row.commitment) {
        row.status = "fail";
        row.reason = `its SHA-256 is ${row.computed}, not the commitment ${row.commitment}`;
      } else if (broken) {
        row.status = "fail";
        row.reason = broken;
      } else {
        row.status = "pass";
        row.reason = `SHA-256 of the contribution is the commitment ${row.computed}`;
      }
    }
    seats.push(row);
  }
  const failed = seats.filter((r) => r.status === "fail").map((r) => r.index);
  const waiting = seats.filter((r) => r.contribution === null).map((r) => r.index);
  const seed = { status: "pending", computed: null, expected, reason: null };
  if (waiting.length) {
    if (expected !== null) {
      seed.status = "fail";
      seed.reason = `the client seed is set, but ${waiting.length} seat(s) have not revealed: it cannot come from every seat`;
    } else {
      seed.reason = `${waiting.length} of ${seats.length} seat(s) have not revealed yet`;
    }
  } else {
    try {
      seed.computed = await tableClientSeed(seats.map((r) => r.seat), seats.map((r) => r.contribution));
    } catch (error) {
      seed.status = "fail";
      seed.reason = `no client seed can be derived from these seats: ${error.message}`;
    }
    if (seed.computed !== null) {
      if (expected === null) {
        seed.reason = "every seat revealed, but the pair has no client seed yet";
      } else if (seed.computed === expected) {
        seed.status = "pass";
        seed.reason = `the seats' contributions derive the client seed ${seed.computed}`;
      } else {
        seed.status = "fail";
        seed.reason = `the seats' contributions derive ${seed.computed}, not the client seed ${expected}`;
      }
    }
  }
  return { seats, seed, failed, waiting };
}

/**
 * Where a player's contribution is in a checked table (`checked` from
 * checkTable): `{ status, index, seat, reason, hint }`. `pass`: a seat's
 * commitment is its SHA-256, the seat revealed exactly it, and it went into
 * the derived client seed (or the table was voided, `void` true, and nothing
 * was derived). `pending`: its seat has not revealed, or not every seat has.
 * `fail`: it matches no seat, its seat shows another contribution, the
 * client seed is not the derived one, or its seat never revealed before the
 * table was voided. `reason` is a code (in_seed, void, not_revealed,
 * others_not_revealed, no_seat, shown_without_commitment,
 * other_contribution, seed_mismatch, void_unrevealed, empty) that the page
 * puts in words; `hash` is its SHA-256. `hint`: the
 * seat matched once surrounding spaces are removed, when that is the case.
 */
export async function findContribution(checked, mine, { voided = false } = {}) {
  const out = { status: "fail", index: null, seat: null, reason: null, hint: null, void: false };
  if (typeof mine !== "string" || mine === "") {
    out.reason = "empty";
    return out;
  }
  const hash = await tableSha256Hex(new TextEncoder().encode(mine));
  const row = checked.seats.find((r) => r.commitment === hash);
  if (!row) {
    const shown = checked.seats.find((r) => r.contribution === mine);
    if (shown) {
      out.index = shown.index;
      out.seat = shown.seat;
      out.reason = "shown_without_commitment";
    } else {
      out.reason = "no_seat";
      const trimmed = mine.trim();
      if (trimmed !== mine && trimmed !== "") {
        const near = await tableSha256Hex(new TextEncoder().encode(trimmed));
        const nearRow = checked.seats.find((r) => r.commitment === near);
        if (nearRow) out.hint = { index: nearRow.index, seat: nearRow.seat };
      }
    }
    out.hash = hash;
    return out;
  }
  out.index = row.index;
  out.seat = row.seat;
  out.hash = hash;
  if (row.contribution === null) {
    out.status = voided ? "fail" : "pending";
    out.reason = voided ? "void_unrevealed" : "not_revealed";
  } else if (row.contribution !== mine) {
    out.reason = "other_contribution";
  } else if (checked.seed.status === "pass") {
    out.status = "pass";
    out.reason = "in_seed";
  } else if (checked.seed.status === "fail") {
    out.reason = "seed_mismatch";
  } else if (voided) {
    out.status = "pass";
    out.void = true;
    out.reason = "void";
  } else {
    out.status = "pending";
    out.reason = "others_not_revealed";
  }
  return out;
}
