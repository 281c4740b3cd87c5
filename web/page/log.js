// The page's checks of the transparency log for one record: a receipt and
// its inclusion proof, the checkpoint against the one this browser saw
// before, the witnesses who vouch for that checkpoint (the player's witness
// policy, witness.mjs), and the other pairs given the same client seed.

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

// ---- Witnesses ----------------------------------------------------------------

/** Where this browser keeps the player's witness policy (the keys as given, and k). */
const WITNESS_POLICY_KEY = "fairdeal-witness-policy";

/** What a witness is, in words a player understands. */
const WITNESS_WORDS = "A witness is an independent party that keeps its own copy of the log's latest checkpoint "
  + "and signs (cosigns) a newer one only when the log proves it only grew since: it never signs two different histories.";

/**
 * The player's witness policy, as given: `witness=<vkey>` (repeatable) and
 * `quorum=<k>` in the URL, which are kept, else the one kept in this
 * browser. `{ vkeys, quorum }` or null.
 */
function givenWitnessPolicy() {
  const params = new URLSearchParams(location.search);
  if (params.has("witness")) {
    const vkeys = witnessKeysFromParams(params);
    const quorum = (params.get("quorum") || "").trim();
    return { vkeys, quorum: quorum || null, fromUrl: true };
  }
  try {
    const kept = JSON.parse(localStorage.getItem(WITNESS_POLICY_KEY) || "null");
    // A value this page did not write is ignored.
    if (kept && Array.isArray(kept.vkeys) && kept.vkeys.length && kept.vkeys.every((v) => typeof v === "string")) {
      return { vkeys: kept.vkeys, quorum: kept.quorum === null || kept.quorum === undefined ? null : String(kept.quorum) };
    }
  } catch {
    // No storage, or not JSON: no policy kept.
  }
  return null;
}

/** Keeps (or, with null, forgets) the player's witness policy in this browser. */
function keepWitnessPolicy(given) {
  try {
    if (given) localStorage.setItem(WITNESS_POLICY_KEY, JSON.stringify({ vkeys: given.vkeys, quorum: given.quorum }));
    else localStorage.removeItem(WITNESS_POLICY_KEY);
  } catch {
    // Storage refused (a private window, a file:// copy): the policy lasts this visit.
  }
}

/**
 * The policy in force: `{ given, policy, error }` (policy null without one,
 * or when the keys given are not witness keys: then error says why).
 */
let witnessPolicyNow = null;

async function loadWitnessPolicy(given) {
  if (!given) return { given: null, policy: null, error: null };
  try {
    const policy = await witnessPolicy(given.vkeys, given.quorum);
    if (given.fromUrl) keepWitnessPolicy(given);
    return { given, policy, error: null };
  } catch (error) {
    return { given, policy: null, error: error.message || String(error) };
  }
}

/** The policy in force (read from the URL or storage on first use). */
function currentWitnessPolicy() {
  if (witnessPolicyNow === null) witnessPolicyNow = loadWitnessPolicy(givenWitnessPolicy());
  return witnessPolicyNow;
}

/** Sets the policy (a checked `{ given, policy, error }`): every later check uses it. */
function setWitnessPolicy(state) {
  witnessPolicyNow = Promise.resolve(state);
  witnessViewNow = null;
}

/**
 * The log's latest checkpoint and, with a policy, the one the page trusts:
 * `{ policy, latest, trusted, at }`. latest: `{ note, checkpoint, names,
 * unchecked }` (names: the policy's witnesses whose cosignatures verify;
 * unchecked: every name on a cosignature line, unverified), or null when it
 * could not be read and verified. trusted: the latest when the quorum
 * cosigned it, else `GET /v1/log/witnessed-checkpoint` when the quorum
 * cosigned that one, else null.
 */
async function readWitnessView(vkey) {
  const { policy } = await currentWitnessPolicy();
  const logName = vkey.split("+")[0];
  const read = async (path) => {
    const response = await fetch(path, { headers: { Accept: "text/plain" } });
    if (!response.ok) return null;
    const note = await response.text();
    const checkpoint = await verifyCheckpoint(vkey, note);
    return { note, checkpoint, names: policy ? await vouching(policy, note) : [], unchecked: cosignerNames(note, logName) };
  };
  const latest = await read("/log/checkpoint").catch(() => null);
  const view = { policy, latest, trusted: null, witnessed: null, at: Date.now() };
  if (!policy) return view;
  if (latest && latest.names.length >= policy.quorum) {
    view.trusted = latest;
    return view;
  }
  view.witnessed = await read("/v1/log/witnessed-checkpoint").catch(() => null);
  if (view.witnessed && view.witnessed.names.length >= policy.quorum) view.trusted = view.witnessed;
  return view;
}

let witnessViewNow = null;

/** The witness view, read once for a lookup (again when `fresh` and it is over a second old). */
async function witnessView(vkey, fresh = false) {
  if (witnessViewNow !== null && fresh && Date.now() - (await witnessViewNow).at > 1000) witnessViewNow = null;
  if (witnessViewNow === null) witnessViewNow = readWitnessView(vkey);
  return witnessViewNow;
}

/** Forgets the witness view: a new lookup reads the checkpoints again. */
function resetWitnessView() {
  witnessViewNow = null;
}

/** "a", "a and b", "a, b and c". */
function namesText(names) {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** A check the witnesses the player trusts do not vouch for (yet): never a PASS. */
function untrustedCheckEl(name, detail) {
  return el("span", { class: "check", "data-check": name, "data-result": "untrusted", title: detail || "" },
    `\u25cb NOT YET TRUSTED: ${name}`);
}

/**
 * What the player's witnesses say of the log entry at `index`, proven in
 * the log-signed checkpoint `checkpoint` (a receipt's):
 *
 *   { state: "none", parts }       no policy: the names of the checkpoint's
 *                                  cosigners, unchecked, as information;
 *   { state: "trusted", names, size, parts }
 *                                  the entry is in a checkpoint the quorum
 *                                  cosigned (the same, or proven consistent
 *                                  with it): names, the witnesses who did;
 *   { state: "untrusted", parts, reason }
 *                                  no checkpoint the quorum cosigned covers it;
 *   { state: "fork", parts, reason }
 *                                  the witnessed checkpoint and this one are
 *                                  not one history.
 */
async function witnessCheck(vkey, checkpoint, index) {
  let view = await witnessView(vkey);
  if (!view.policy) {
    const shown = view.latest && view.latest.unchecked.length ? view.latest.unchecked : [];
    const parts = shown.length ? [el("p", { class: "note", "data-cosigners": shown.join(" ") },
      `The log's latest checkpoint is also signed by ${shown.length} witness${shown.length === 1 ? "" : "es"}: `,
      ...shown.flatMap((name, i) => [i ? ", " : "", el("span", { class: "mono", text: name })]),
      `. ${WITNESS_WORDS} This page did not check their signatures: you have named no witness you trust `
      + "(\u201cWitnesses you trust\u201d, above).")] : [];
    return { state: "none", parts };
  }
  if (!view.trusted || index >= view.trusted.checkpoint.size) view = await witnessView(vkey, true);
  const { policy, latest, trusted } = view;
  const k = policy.quorum;
  const of = `${k} of the ${policy.witnesses.length} witness${policy.witnesses.length === 1 ? "" : "es"} you trust`;
  const untrusted = (reason) => {
    const signedBy = latest ? latest.names : [];
    const missing = policy.witnesses.map((w) => w.name).filter((name) => !signedBy.includes(name));
    return {
      state: "untrusted",
      reason,
      parts: [el("p", { class: "warning", role: "status", "data-untrusted": "", "data-witnessed-by": signedBy.join(" ") },
        el("strong", { text: "Not yet trusted. " }),
        `${reason} ${WITNESS_WORDS} Until ${of} have signed a checkpoint that holds this record, the operator could be `
        + "showing this history to you alone, and another to everyone else. The cards can still be right; what is not "
        + "yet shown is that everyone sees the same log. Check again later: witnesses usually sign within seconds. "
        + `If it stays like this, ask the operator why.`,
        signedBy.length ? ` Signed so far by: ${namesText(signedBy)}.` : " None of them has signed the log's latest checkpoint.",
        missing.length ? ` Not signed by: ${namesText(missing)}.` : "")],
    };
  };
  if (!trusted) {
    return untrusted(`No checkpoint of this log is signed by ${of} yet`
      + `${latest ? ` (its latest, of ${latest.checkpoint.size} entries, by ${latest.names.length})` : ""}.`);
  }
  const size = trusted.checkpoint.size;
  if (index >= size) {
    return untrusted(`This record is entry ${index} of the log, newer than the latest checkpoint signed by ${of} `
      + `(${size} entries).`);
  }
  const sameTree = size === checkpoint.size && trusted.checkpoint.root === checkpoint.root;
  if (!sameTree) {
    // The receipt's checkpoint and the witnessed one: one must extend the other.
    let consistent = false;
    let unproven = false;
    if (size !== checkpoint.size) {
      const [small, large] = size < checkpoint.size ? [trusted.checkpoint, checkpoint] : [checkpoint, trusted.checkpoint];
      try {
        const { status, body } = await getJson(`/v1/log/consistency?old=${small.size}&new=${large.size}`);
        if (status >= 500 || status === 429) unproven = true;
        else consistent = status === 200 && Array.isArray(body.proof)
          && await verifyConsistency(small.size, small.root, large.size, large.root, body.proof);
      } catch {
        unproven = true;
      }
    }
    if (unproven) return untrusted("The proof that the log's checkpoints are one history could not be read.");
    if (!consistent) {
      const reason = `the checkpoint the witnesses signed (${size} entries, root ${trusted.checkpoint.root}) and the one `
        + `this record is proven in (${checkpoint.size} entries, root ${checkpoint.root}) are not one history`;
      return { state: "fork", reason, parts: [el("p", { class: "error", role: "alert", "data-fork": "" },
        `Warning: ${reason}: the operator is showing different histories (a forked log). Keep both checkpoints as evidence.`)] };
    }
  }
  const newest = latest && latest.checkpoint.size > size
    ? ` The log's newest checkpoint (${latest.checkpoint.size} entries) is not yet signed by ${of}`
      + `${latest.names.length ? ` (only by ${namesText(latest.names)})` : ""}; this record was checked against the latest one that is.`
    : "";
  const node = el("p", { class: "note", "data-witnessed": "", "data-witnessed-by": trusted.names.join(" "), "data-witnessed-size": String(size) },
    `Witnessed: checked against the log's checkpoint of ${size} entries, which ${trusted.names.length} of the `
    + `${policy.witnesses.length} witness${policy.witnesses.length === 1 ? "" : "es"} you trust signed: `,
    ...trusted.names.flatMap((name, i) => [i ? ", " : "", el("span", { class: "mono", text: name })]),
    `. They would not sign two different histories, so this is the log everyone is shown.${newest}`);
  return { state: "trusted", names: trusted.names, size, parts: [node] };
}

/** Shows the policy in force in the "Witnesses you trust" section, and fills its form. */
async function showWitnessPolicy() {
  const { given, policy, error } = await currentWitnessPolicy();
  const current = document.getElementById("witness-current");
  const problem = document.getElementById("witness-error");
  if (given) {
    document.getElementById("witness-keys").value = given.vkeys.join("\n");
    document.getElementById("witness-quorum").value = given.quorum || "";
  }
  problem.hidden = !error;
  problem.textContent = error ? `These witness keys are not used: ${error}` : "";
  if (policy) {
    current.dataset.quorum = String(policy.quorum);
    current.dataset.witnesses = policy.witnesses.map((w) => w.name).join(" ");
    current.replaceChildren(`This page trusts the log only where ${policy.quorum} of these ${policy.witnesses.length} `
      + `witness${policy.witnesses.length === 1 ? "" : "es"} signed its checkpoint: `,
    ...policy.witnesses.flatMap((w, i) => [i ? ", " : "", el("span", { class: "mono", text: w.name })]), ".");
  } else {
    delete current.dataset.quorum;
    current.dataset.witnesses = "";
    current.textContent = "You have named no witness: the page checks the log's own signature, and shows which witnesses "
      + "signed its checkpoint without checking them.";
  }
}

/** Drops `witness=` and `quorum=` from the address: the form's choice replaces them. */
function dropWitnessParams() {
  if (!onServer) return;
  const params = new URLSearchParams(location.search);
  if (!params.has("witness") && !params.has("quorum")) return;
  params.delete("witness");
  params.delete("quorum");
  const search = params.toString();
  history.replaceState(null, "", search ? `?${search}` : location.pathname);
}

/** The witness form: use the keys given (kept when they are witness keys), or forget them. */
async function submitWitnessPolicy(event) {
  event.preventDefault();
  // A key holds no white space: any run of it separates two.
  const vkeys = document.getElementById("witness-keys").value.split(/\s+/).filter(Boolean);
  const quorum = document.getElementById("witness-quorum").value.trim() || null;
  const problem = document.getElementById("witness-error");
  const state = vkeys.length ? await loadWitnessPolicy({ vkeys, quorum }) : { given: null, policy: null, error: null };
  if (state.error) {
    // Refused: the policy in force stays.
    problem.hidden = false;
    problem.textContent = `These witness keys are not used: ${state.error}`;
    return;
  }
  setWitnessPolicy(state);
  keepWitnessPolicy(state.given);
  dropWitnessParams();
  await showWitnessPolicy();
  const id = document.getElementById("lookup-id").value.trim();
  if (id && onServer) lookUp(id, null);
}

async function forgetWitnessPolicy() {
  keepWitnessPolicy(null);
  setWitnessPolicy({ given: null, policy: null, error: null });
  dropWitnessParams();
  document.getElementById("witness-keys").value = "";
  document.getElementById("witness-quorum").value = "";
  await showWitnessPolicy();
}

/** Whether a node from logChecks reports a log part the player's witnesses do not vouch for. */
function untrustedLog(node) {
  return node.dataset.result === "untrusted";
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
    const entryOk = signed && says(JSON.parse(body.entry));
    const witnessed = await witnessCheck(vkey, checkpoint, body.log_index);
    const detail = `entry ${body.log_index} of the log's ${checkpoint.size}, signed by ${vkey.split("+")[0]}`;
    const parts = [entryOk && witnessed.state === "untrusted"
      ? untrustedCheckEl(name, `${detail}; ${witnessed.reason}`)
      : checkEl(name, entryOk && witnessed.state !== "fork",
        `${detail}${witnessed.state === "trusted" ? `; witnessed by ${witnessed.names.join(", ")}` : ""}`)];
    parts[0].dataset.logIndex = String(body.log_index);
    if (witnessed.state === "trusted") parts[0].dataset.witnessedBy = witnessed.names.join(" ");
    parts.push(...witnessed.parts);
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
