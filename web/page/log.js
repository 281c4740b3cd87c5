// The page's checks of the transparency log for one record: a receipt and
// its inclusion proof, the checkpoint against the one this browser saw
// before, and the other pairs given the same client seed.

// ---- The transparency log --------------------------------------------------

let logKey = null;

/** The log's verifier key, read once. */
async function logVkey() {
  if (logKey === null) {
    const response = await fetch("/log/key").catch(() => null);
    logKey = response && response.ok ? (await response.text()).trim() : "";
  }
  return logKey;
}

/**
 * Compares a verified checkpoint with the largest one this browser verified
 * before for the log's origin, and remembers the new one if it extends it.
 * A smaller tree, the same size with another root, or a larger tree whose
 * consistency proof fails: different histories (a fork), returned as
 * `{ seen, fork: true }`. A proof the server would not give: `{ seen,
 * fork: false }` (not proven either way). Otherwise null.
 */
async function forkAgainst(checkpoint) {
  let key;
  let seen = null;
  try {
    key = `fairdeal-checkpoint:${checkpoint.origin}`;
    const kept = JSON.parse(localStorage.getItem(key) || "null");
    // A value this page did not write is replaced, not trusted.
    if (kept && Number.isSafeInteger(kept.size) && typeof kept.root === "string") seen = kept;
  } catch (error) {
    if (key === undefined || !(error instanceof SyntaxError)) {
      return null; // No storage (a file:// copy, a private window): nothing to compare.
    }
  }
  if (seen && checkpoint.size < seen.size) return { seen, fork: true };
  if (seen && checkpoint.size === seen.size && checkpoint.root !== seen.root) return { seen, fork: true };
  if (seen && seen.size > 0 && checkpoint.size > seen.size) {
    let answer;
    try {
      answer = await getJson(`/v1/log/consistency?old=${seen.size}&new=${checkpoint.size}`);
    } catch {
      return { seen, fork: false }; // The network failed: not proven either way.
    }
    const { status, body } = answer;
    if (status >= 500 || status === 429) return { seen, fork: false };
    // Both sizes are in checkpoints the log signed: refusing the proof, or
    // a proof that does not verify, is the log failing to show it grew.
    let consistent = false;
    try {
      consistent = status === 200 && Array.isArray(body.proof)
        && await verifyConsistency(seen.size, seen.root, checkpoint.size, checkpoint.root, body.proof);
    } catch {
      consistent = false; // Not base64: not a proof.
    }
    if (!consistent) return { seen, fork: true };
  }
  if (!seen || checkpoint.size > seen.size) {
    try {
      localStorage.setItem(key, JSON.stringify({ size: checkpoint.size, root: checkpoint.root }));
    } catch {
      // Storage full or refused: the next visit compares with the older one.
    }
  }
  return null;
}

/**
 * The log receipt and proof at `path` (a round's or a pair's), checked in
 * this browser: the signature, that the entry says what `says(entry)`
 * expects, the inclusion proof against the signed checkpoint, and that the
 * checkpoint extends the one this browser saw before. `name` names the
 * check; `required`: a receipt the server does not have (404) fails it
 * (a chain round's published seed must be in the log).
 */
async function logChecks(path, says, { name = "log", required = false } = {}) {
  if (!onServer) return [];
  const vkey = await logVkey();
  if (!vkey) return [];
  const { status, body } = await getJson(path);
  if (status === 202) {
    return [el("span", { class: "check", "data-check": name, "data-result": "pending", text: `${name}: not yet in a checkpoint` })];
  }
  if (status === 404 && required) {
    return [checkEl(name, false, `the server has no receipt for it (${body.detail || "not found"})`)];
  }
  if (status !== 200) return [];
  try {
    const signed = await verifyReceipt(vkey, body);
    const { checkpoint } = await verifyInclusion(vkey, body.proof, body.entry);
    const parts = [checkEl(name, signed && says(JSON.parse(body.entry)),
      `entry ${body.log_index} of the log's ${checkpoint.size}, signed by ${vkey.split("+")[0]}`)];
    parts[0].dataset.logIndex = String(body.log_index);
    const compared = await forkAgainst(checkpoint);
    if (compared && compared.fork) {
      const { seen } = compared;
      parts.push(el("p", { class: "error", role: "alert", "data-fork": "" },
        `Warning: the log now shows ${checkpoint.size} entries with root ${checkpoint.root}, but this browser saw `
        + `${seen.size} entries with root ${seen.root} before, and the log cannot prove it grew from that. `
        + "Both cannot be true: the operator is showing different histories (a forked log). "
        + "Keep both checkpoints as evidence."));
    } else if (compared) {
      parts.push(el("p", { class: "note", "data-unproven": "" },
        `This browser saw the log at ${compared.seen.size} entries before; the server did not give the proof `
        + `that the ${checkpoint.size} entries now extend them. Check again later.`));
    }
    return parts;
  } catch (error) {
    return [checkEl(name, false, error.message || String(error))];
  }
}

/** Whether a log entry is this round's. */
const roundEntry = (round) => (entry) => entry.type === "round" && entry.round === round.id
  && String(entry.nonce) === String(round.nonce) && entry.seed_pair === round.seed_pair_id;

/** Whether a log entry is this pair's commitment (a chain pair's: with its length). */
const commitEntry = (pair) => (entry) => entry.type === "commit" && entry.seed_pair === pair.id
  && entry.server_seed_hash === pair.server_seed_hash && entry.next_server_seed_hash === pair.next_server_seed_hash
  && (pair.chain ? Number(entry.chain_length) === Number(pair.chain.length) : entry.chain_length === undefined);

/**
 * The other pairs the log shows with this pair's client seed, or one that
 * looks like it (sameSeedFindings in tlog.mjs). One of the same tenant that
 * held it while this pair was live could have been dealt from the same
 * client seed and the better deal shown: returned in `shopped`, and the check
 * fails. Another tenant's pair, or a seed reused after a reveal, is listed as
 * information only: two players may choose the same seed.
 */
async function sameClientSeed(pair) {
  if (!onServer || pair.client_seed === null) return { parts: [], shopped: [] };
  let answer;
  try {
    answer = await getJson(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/same-client-seed`);
  } catch {
    answer = { status: 0 };
  }
  const { status, body } = answer;
  if (status !== 200) {
    return { parts: [el("p", { class: "note", text: "The other pairs with this client seed could not be read; check again later." })], shopped: [] };
  }
  const digest = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pair.client_seed))));
  if (body.client_seed_sha256 !== digest) {
    return { parts: [checkEl("same client seed", false,
      `the server names the hash ${shownText(String(body.client_seed_sha256))}, not ${digest}, the SHA-256 of the client seed shown`)], shopped: [] };
  }
  const { others, shopped } = sameSeedFindings(body);
  const alike = others.filter((o) => o.lookalike).length;
  const parts = [checkEl("same client seed", shopped.length === 0,
    `${others.length}${body.truncated ? "+" : ""} other pair(s) in the log carry this client seed (SHA-256 ${digest})`
    + `${alike ? `, ${alike} of them one that looks like it` : ""}; ${shopped.length} of them at the same time and the same tenant`)];
  if (others.length) {
    const list = el("ul", { class: "same-seed", "data-same-seed": "" });
    for (const other of others) {
      const seed = other.lookalike ? "a client seed that looks like this one (other bytes)" : "this client seed";
      const when = other.shopped ? `held ${seed} AT THE SAME TIME as this pair, at the same tenant`
        : other.overlap ? `held ${seed} at the same time, but at another tenant (brand) of this service: `
          + "another operator's player chose the same seed; not deal-shopping"
        : other.when === "after" ? `got ${seed} after this pair was revealed (a kept or a common seed: normal)`
        : `held ${seed} before this pair got it (a kept or a common seed: normal)`;
      list.append(el("li", {
        class: other.shopped ? "error" : null,
        "data-overlap": other.overlap ? "true" : "false",
        "data-same-tenant": other.sameTenant ? "true" : "false",
        "data-lookalike": other.lookalike ? "true" : "false",
        "data-shopping": other.shopped ? "true" : "false",
      },
      el("a", { href: `?pair=${encodeURIComponent(other.seed_pair)}`, class: "mono", text: other.seed_pair }),
      ` — ${statusText(other.status)}; ${when}`));
    }
    parts.push(el("p", { text: "Other seed pairs given this client seed, or one that looks like it, as the transparency log orders them"
      + `${body.truncated ? " (the first 100; every one that overlaps this pair is among them)" : ""}:` }), list);
    if (!shopped.length) {
      parts.push(el("p", { class: "note", "data-same-seed-note": "" },
        "None of them held it while this pair was live at the same tenant, so no deal could have been dealt on both "
        + "and the better one shown. A seed shared with another tenant, or reused after a reveal, is not deal-shopping."));
    }
  }
  if (shopped.length) {
    const alikeShopped = shopped.some((o) => o.lookalike);
    parts.push(el("p", { class: "error", role: "alert", "data-shopped": "" },
      `Warning: this client seed${alikeShopped ? ", or one that looks like it," : ""} was given to ${shopped.length} other `
      + "pair(s) of the same tenant while this one was live. The operator could have dealt each hand on several pairs "
      + "and shown the one it liked (deal-shopping)."
      + (alikeShopped ? " A seed that looks like yours but has other bytes (an invisible character, a letter from "
        + "another alphabet) deals other cards, and you could not have told them apart." : "")));
  }
  return { parts, shopped };
}
