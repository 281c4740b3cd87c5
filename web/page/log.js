// The page's checks of the transparency log for one record: a receipt and
// its inclusion proof, the checkpoint against the one this browser saw
// before, the witnesses who vouch for that checkpoint (the player's witness
// policy, witness.mjs), and the other pairs given the same client seed.

// ---- The transparency log --------------------------------------------------

import { clientSeedEntry, outOfOrder, pairCommitEntry, provenReceipt, sha256Hex } from "../evidence.mjs";
import { shownLabel, shownText } from "../seed-display.mjs";
import { sameSeedFindings, verifyCheckpoint, verifyConsistency, verifyReceipt } from "../tlog.mjs";
import { cosignerNames, vouching, witnessPolicy } from "../witness.mjs";
import { failedLog, lookUpAgain, statusText } from "./lookup.js";
import { acceptLogKey, compareWitnessPolicies, keyListEl, logPinNotice, pinLogKey, proposedWitnessPolicy } from "./trust.js";
import { checkEl, el, getJson, onServer, released, service, serviceUrl } from "./views.js";

let logKey = null;

/**
 * The log's verifier key this page trusts, read once: the key the service
 * serves at `/log/key`, held against the one this browser pinned
 * (pinLogKey, trust.js). `{ vkey, pin }`; vkey "" when the service serves
 * none (every log check then fails: a service with a log must show its key).
 */
async function logKeyState() {
  if (logKey === null) {
    logKey = (async () => {
      const response = await fetch(serviceUrl("/log/key")).catch(() => null);
      const served = response && response.ok ? (await response.text()).trim() : "";
      if (!served) return { vkey: "", pin: null };
      const pin = pinLogKey(service, served, { firstUse: !released });
      return { vkey: pin.vkey, pin };
    })();
  }
  return logKey;
}

/** The log's verifier key this page checks signatures with ("" when the service serves none). */
export async function logVkey() {
  return (await logKeyState()).vkey;
}

/** The notice of the log key's pin, for the top of a lookup (null when the key is the one pinned). */
export async function logPinNoticeEl() {
  if (!onServer) return null;
  const { pin } = await logKeyState();
  return logPinNotice(pin, () => {
    acceptLogKey(service, pin.served);
    logKey = null;
    resetWitnessView();
    lookUpAgain();
  });
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
 * The player's witness policy kept in this browser, `{ vkeys, quorum }`, or
 * null. A link's `witness=` parameters never replace it: they are a
 * proposal (proposedWitnessPolicy, trust.js) the player may accept.
 */
function givenWitnessPolicy() {
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
    const response = await fetch(serviceUrl(path), { headers: { Accept: "text/plain" } });
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
export async function witnessView(vkey, fresh = false) {
  if (witnessViewNow !== null && fresh && Date.now() - (await witnessViewNow).at > 1000) witnessViewNow = null;
  if (witnessViewNow === null) witnessViewNow = readWitnessView(vkey);
  return witnessViewNow;
}

/** Forgets the witness view: a new lookup reads the checkpoints again. */
export function resetWitnessView() {
  witnessViewNow = null;
}

/** "a", "a and b", "a, b and c". */
function namesText(names) {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** A check the witnesses the player trusts do not vouch for (yet): never a PASS. */
export function untrustedCheckEl(name, detail) {
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
      + "(\u201cWitnesses you trust\u201d, below).")] : [];
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

/**
 * Shows the policy in force in the "Witnesses you trust" section, and fills
 * its form; and a link's proposal beside it, with a button to accept it.
 */
export async function showWitnessPolicy() {
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
    ...await keyListEl(policy.witnesses), ".");
  } else {
    delete current.dataset.quorum;
    current.dataset.witnesses = "";
    current.textContent = "You have named no witness: the page checks the log's own signature, and shows which witnesses "
      + "signed its checkpoint without checking them.";
  }
  await showWitnessProposal(policy);
}

/**
 * A link's witness policy, shown as a proposal beside the kept one: never
 * used until the player accepts it. A proposed witness with the name of a
 * kept one and another key is flagged: it could pose as the player's.
 */
async function showWitnessProposal(kept) {
  const box = document.getElementById("witness-proposal");
  const given = proposedWitnessPolicy();
  box.hidden = true;
  box.replaceChildren();
  delete box.dataset.impostors;
  if (!given) return;
  let proposed;
  try {
    proposed = await witnessPolicy(given.vkeys, given.quorum);
  } catch (error) {
    box.hidden = false;
    box.replaceChildren(el("p", { class: "error", "data-proposal-error": "" },
      `This link proposes witness keys that are not usable, and they are ignored: ${error.message || error}`));
    return;
  }
  const { same, impostors } = compareWitnessPolicies(kept, proposed);
  if (same) return;
  box.hidden = false;
  const accept = el("button", { type: "button", "data-witness-accept": "", text: "Use the proposed witnesses instead" });
  accept.addEventListener("click", () => useWitnessPolicy(
    { given: { vkeys: proposed.witnesses.map((w) => w.vkey), quorum: given.quorum }, policy: proposed, error: null }));
  const ignore = el("button", { type: "button", class: "secondary", "data-witness-ignore": "", text: "Ignore the proposal" });
  ignore.addEventListener("click", async () => {
    dropWitnessParams();
    await showWitnessPolicy();
  });
  const impostorNames = impostors.map((w) => w.name);
  box.dataset.witnesses = proposed.witnesses.map((w) => w.name).join(" ");
  box.append(el("p", { "data-witness-proposal-text": "" },
    el("strong", { text: "This link proposes other witnesses. " }),
    `It asks this page to trust the log where ${proposed.quorum} of `,
    ...await keyListEl(proposed.witnesses, (w) => (impostorNames.includes(w.name) ? { "data-impostor": "" } : {})),
    ` signed. They are not used: ${kept ? "the witnesses you keep stay in force" : "you have named no witness"} `
    + "until you accept them. Anyone can put witnesses in a link, the operator too: accept only keys you took from the "
    + "witnesses themselves."));
  if (impostors.length) {
    box.dataset.impostors = impostorNames.join(" ");
    box.append(el("p", { class: "error", role: "alert", "data-witness-impostor": "" },
      "Warning: ", ...impostors.flatMap((w, i) => [i ? ", " : "", shownLabel(w.name)]),
      ` in this link ${impostors.length === 1 ? "has" : "have"} the name of a witness you trust, or a name with characters `
      + "outside printable ASCII that can pass for one, with another key (compare the fingerprints). A witness's signature "
      + "names the witness, not its key, so a party holding that key could pose as your witness. Do not accept this unless "
      + "the witness itself told you its key changed."));
  }
  box.append(el("div", { class: "row" }, accept, " ", ignore));
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
export async function submitWitnessPolicy(event) {
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
  await useWitnessPolicy(state);
}

/** Puts a checked policy in force, keeps it in this browser, and checks the record shown again. */
async function useWitnessPolicy(state) {
  setWitnessPolicy(state);
  keepWitnessPolicy(state.given);
  dropWitnessParams();
  await showWitnessPolicy();
  lookUpAgain();
}

export async function forgetWitnessPolicy() {
  keepWitnessPolicy(null);
  setWitnessPolicy({ given: null, policy: null, error: null });
  dropWitnessParams();
  document.getElementById("witness-keys").value = "";
  document.getElementById("witness-quorum").value = "";
  await showWitnessPolicy();
}

/** Whether a node from logChecks reports an entry still waiting for its checkpoint. */
export function awaitingLog(node) {
  return node.dataset.awaitingCheckpoint !== undefined;
}

/** Whether a node from logChecks reports a log part the player's witnesses do not vouch for. */
export function untrustedLog(node) {
  return node.dataset.result === "untrusted";
}

/**
 * How long an entry may wait for its checkpoint before its absence is a
 * failure: the service integrates new entries within `--log-interval` (1 s
 * by default, 60 s at most) and a checkpoint follows at once, so two
 * minutes is a wide margin. The page counts from the moment this browser
 * first saw the entry waiting (kept across visits): the entry's own `time`
 * is the operator's clock, which must neither excuse nor condemn.
 */
export const INTEGRATION_WINDOW_MS = 120_000;

/** When this page first saw an entry waiting for its checkpoint, by log name and index. */
const firstSeenWaiting = new Map();

/**
 * The log receipt and proof at `path` (a round's, a pair's, an entry's),
 * checked in this browser: the signature, that the entry says what
 * `says(entry)` expects, the inclusion proof against the signed checkpoint,
 * and that the checkpoint extends the one this browser saw before. `name`
 * names the check. A record the log must hold: a receipt the server does
 * not have (404), or a service that shows no log key, fails it
 * (`required`, the default; false only where no entry is due). An entry
 * not yet in a checkpoint is pending (its signature checked already) for
 * INTEGRATION_WINDOW_MS, then a failure. The first node carries the entry's
 * log index (`data-log-index`); the array carries the parsed entry as
 * `.entry`.
 */
export async function logChecks(path, says, { name = "log", required = true } = {}) {
  if (!onServer) return [];
  const vkey = await logVkey();
  if (!vkey) {
    return required ? [checkEl(name, false, "the service shows no transparency log key (GET /log/key), so nothing it "
      + "says can be held against its log")] : [];
  }
  let answer = await getJson(path);
  if (answer.status === 202 && Number.isSafeInteger(answer.body.log_index)
    && answer.body.log_index < await latestSignedSize(vkey)) {
    // A checkpoint signed since the receipt was read holds the entry: read
    // it again, now owed with its proof (waitingChecks fails it if not).
    answer = await getJson(path);
  }
  const { status, body } = answer;
  if (status === 202) return waitingChecks(vkey, body, says, name);
  if (status === 404 && required) {
    return [checkEl(name, false, `the server has no receipt for it (${body.detail || "not found"})`)];
  }
  if (status === 404) return [];
  if (status !== 200) return [unansweredCheckEl(name, status)];
  try {
    const { signed, checkpoint, entry } = await provenReceipt(vkey, body);
    const entryOk = signed && says(entry);
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
    parts.entry = entry;
    parts.checkpoint = checkpoint;
    return parts;
  } catch (error) {
    return [checkEl(name, false, error.message || String(error))];
  }
}

/**
 * A receipt whose entry is not yet in a checkpoint (202): its signature and
 * what it says are checked now; pending within INTEGRATION_WINDOW_MS of the
 * entry, then a failure. A pending node carries `data-awaiting-checkpoint`,
 * which makes the page look the record up again by itself (lookUp).
 */
/**
 * A record the service did not answer (a 5xx, a 429, anything but 200, 202
 * and 404): never a PASS. It is pending, and the page looks again by
 * itself; what the page cannot read it cannot hold against the log.
 */
export function unansweredCheckEl(name, status) {
  return el("span", { class: "check", "data-check": name, "data-result": "pending", "data-awaiting-checkpoint": "",
    "data-unanswered": String(status), title: `the service answered ${status}; the page looks again by itself`,
    text: `${name}: not answered (${status})` });
}

/** Where this browser keeps when it first saw each entry waiting for its checkpoint. */
const WAITING_KEY = "fairdeal-waiting";

/**
 * When this browser first saw entry `index` of the log `logName` waiting
 * (its own clock: the entry's `time` is the operator's, and a skewed clock
 * must neither excuse nor condemn). Kept across visits, at most 200.
 */
function firstSeenWaitingAt(logName, index, now) {
  const key = `${logName}:${index}`;
  if (firstSeenWaiting.has(key)) return firstSeenWaiting.get(key);
  let kept = {};
  try {
    const read = JSON.parse(localStorage.getItem(WAITING_KEY) || "{}");
    if (read && typeof read === "object" && !Array.isArray(read)) kept = read;
  } catch {
    kept = {};
  }
  const seen = Number.isFinite(kept[key]) && kept[key] <= now ? kept[key] : now;
  firstSeenWaiting.set(key, seen);
  if (!(key in kept)) {
    kept[key] = seen;
    const keys = Object.keys(kept);
    for (const old of keys.slice(0, Math.max(0, keys.length - 200))) delete kept[old];
    try {
      localStorage.setItem(WAITING_KEY, JSON.stringify(kept));
    } catch {
      // No storage: this visit's first sight counts.
    }
  }
  return seen;
}

/** The size of the log's latest checkpoint, verified with `vkey` (0 when it cannot be read). */
async function latestSignedSize(vkey) {
  try {
    const response = await fetch(serviceUrl("/log/checkpoint"), { headers: { Accept: "text/plain" } });
    if (!response.ok) return 0;
    return (await verifyCheckpoint(vkey, await response.text())).size;
  } catch {
    return 0;
  }
}

async function waitingChecks(vkey, body, says, name) {
  let entry = null;
  let signed = false;
  try {
    signed = await verifyReceipt(vkey, body);
    entry = JSON.parse(body.entry);
  } catch {
    signed = false;
  }
  if (!signed || !Number.isSafeInteger(body.log_index)) {
    return [checkEl(name, false, "the service's receipt for it is not signed by the log's key")];
  }
  if (!says(entry)) {
    const parts = [checkEl(name, false, `the log's entry ${body.log_index} is not this record's`)];
    parts.entry = entry;
    return parts;
  }
  // An entry inside a checkpoint the log already signed has its proof: withholding it is a failure at once.
  const signedSize = await latestSignedSize(vkey);
  if (body.log_index < signedSize) {
    const parts = [checkEl(name, false, `entry ${body.log_index} is inside the log's signed checkpoint of ${signedSize} entries, `
      + "yet the service answers that it is not in a checkpoint and withholds its proof")];
    parts.entry = entry;
    return parts;
  }
  const now = Date.now();
  const since = firstSeenWaitingAt(vkey.split("+")[0], body.log_index, now);
  const parts = now - since > INTEGRATION_WINDOW_MS
    ? [checkEl(name, false, `entry ${body.log_index} is still not in any checkpoint of the log ${Math.round((now - since) / 1000)} s `
      + "after this browser first saw it waiting: the log must publish every entry within two minutes")]
    : [el("span", { class: "check", "data-check": name, "data-result": "pending", "data-awaiting-checkpoint": "",
      title: `entry ${body.log_index}, signed; the page looks again by itself`, text: `${name}: not yet in a checkpoint` })];
  parts[0].dataset.logIndex = String(body.log_index);
  parts.entry = entry;
  return parts;
}

/** The log index a logChecks result proved or saw, or null. */
export function loggedIndex(nodes) {
  const index = nodes.length && nodes[0].dataset.logIndex !== undefined ? Number(nodes[0].dataset.logIndex) : NaN;
  return Number.isSafeInteger(index) ? index : null;
}

/**
 * What the log binds a pair's rounds to, checked from the log's own
 * entries and never from the API's word: the pair's `commit` entry (the
 * commitment the operator was bound to before any client seed existed; a
 * chain pair's with its length) and its `client_seed` entry (the SHA-256 of
 * the client seed every round is dealt with), and that the commitment came
 * first. `record`: `{ id, server_seed_hash, client_seed, chain }` as the
 * API shows them (a round's or its pair's). Returns `{ nodes, commitIndex,
 * clientSeedIndex, ok }` (`nodes` as logChecks gives them; ok false when a
 * check failed).
 */
export async function pairEntryChecks(record, { commitName = "commitment in log", clientSeedRequired = false } = {}) {
  const pair = { id: record.id, server_seed_hash: record.server_seed_hash, next_server_seed_hash: record.next_server_seed_hash,
    chain: record.chain };
  const says = pairCommitEntry(pair);
  const commit = await logChecks(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/receipt`, says, { name: commitName });
  if (commit.entry && !says(commit.entry)) {
    commit.push(el("p", { class: "error", "data-explain": "commit-entry" },
      `The log's commit entry for this pair (entry ${loggedIndex(commit)}) states the commitment `,
      el("span", { class: "mono", text: String(commit.entry.server_seed_hash) }),
      `${commit.entry.chain_length !== undefined ? ` (a chain of ${commit.entry.chain_length})` : ""}, but the service shows `,
      el("span", { class: "mono", text: String(pair.server_seed_hash) }),
      `${pair.chain ? ` (a chain of ${pair.chain.length})` : ""}: the commitment was changed after it was published.`));
  }
  const nodes = [...commit];
  let clientSeedIndex = null;
  let seedEntry = null;
  if (record.client_seed !== null && record.client_seed !== undefined && typeof record.client_seed !== "string") {
    nodes.push(checkEl("client seed in log", false, "the client seed the service shows is not a string of text: it cannot be "
      + "the one the log holds"));
  } else if (record.client_seed === null || record.client_seed === undefined) {
    if (clientSeedRequired) nodes.push(checkEl("client seed in log", false, "the service shows no client seed for a pair that has dealt"));
  } else if (onServer) {
    const digest = await sha256Hex(record.client_seed);
    const seeded = await logChecks(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/receipt?entry=client_seed`,
      clientSeedEntry(pair.id, digest), { name: "client seed in log" });
    if (seeded.entry && !clientSeedEntry(pair.id, digest)(seeded.entry)) {
      seeded.push(el("p", { class: "error", "data-explain": "client-seed-entry" },
        `The log's client seed entry for this pair (entry ${loggedIndex(seeded)}) states SHA-256 `,
        el("span", { class: "mono", text: String(seeded.entry.client_seed_sha256) }),
        ", but the client seed shown hashes to ", el("span", { class: "mono", text: digest }),
        ": the client seed was changed after it was set, and the cards shown are not dealt from the seed you gave."));
    }
    clientSeedIndex = loggedIndex(seeded);
    seedEntry = seeded.entry || null;
    nodes.push(...seeded);
  }
  const commitIndex = loggedIndex(commit);
  for (const { first, second } of outOfOrder([[commitIndex, "commitment"], [clientSeedIndex, "client seed"]])) {
    nodes.push(checkEl("log order", false, `the pair's ${first.name} (entry ${first.index}) is not logged before its ${second.name} `
      + `(entry ${second.index}): the operator could have chosen the commitment knowing the client seed`));
  }
  return { nodes, commitIndex, clientSeedIndex, ok: !nodes.some(failedLog), checkpoint: commit.checkpoint || null,
    commitEntry: commit.entry || null, clientSeedEntry: seedEntry };
}

/**
 * The other pairs the log shows with this pair's client seed, or one that
 * looks like it (sameSeedFindings in tlog.mjs). One of the same tenant that
 * held it while this pair was live could have been dealt from the same
 * client seed and the better deal shown: returned in `shopped`, and the check
 * fails. Another tenant's pair, or a seed reused after a reveal, is listed as
 * information only: two players may choose the same seed.
 */
export async function sameClientSeed(pair, entries = null) {
  if (!onServer || pair.client_seed === null || pair.client_seed === undefined) return { parts: [], shopped: [], foreign: [] };
  let answer;
  try {
    answer = await getJson(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/same-client-seed`);
  } catch {
    answer = { status: 0 };
  }
  const { status, body } = answer;
  if (status !== 200) {
    // Never a PASS without it (looked at again): a same-tenant pair live with the seed fails, another tenant's warns.
    return { parts: [unansweredCheckEl("same client seed", status || "no answer"),
      el("p", { class: "note", text: "The other pairs with this client seed could not be read; the page looks again by itself." })],
    shopped: [], foreign: [], waiting: true };
  }
  const digest = await sha256Hex(pair.client_seed);
  if (body.client_seed_sha256 !== digest) {
    return { parts: [checkEl("same client seed", false,
      `the log's client seed entry states the hash ${shownText(String(body.client_seed_sha256))}, not ${digest}, `
      + "the SHA-256 of the client seed shown")], shopped: [], foreign: [] };
  }
  // The pairs it lists, and this one, held to the log: when each was live and whose it is, from their own entries.
  const held = await heldToLog(pair, entries, body);
  const { others, shopped } = sameSeedFindings(held.body);
  // Live at the same time under another tenant: a second brand's player, or
  // a tenant the operator made to deal this seed twice. The page cannot
  // tell them apart (the tenant is an opaque id), so it warns.
  const foreign = others.filter((o) => o.overlap && !o.sameTenant);
  const alike = others.filter((o) => o.lookalike).length;
  const parts = [checkEl("same client seed", shopped.length === 0,
    `the service lists ${others.length}${body.truncated ? "+" : ""} other pair(s) with this client seed (SHA-256 ${digest})`
    + `${alike ? `, ${alike} of them one that looks like it` : ""}, each held to its own log entries here; ${shopped.length} of `
    + "them at the same time and the same tenant. A pair the service leaves out of its list only a monitor you keep, "
    + "reading the whole log, shows (client_seed_reuse)")];
  if (others.length) {
    const list = el("ul", { class: "same-seed", "data-same-seed": "" });
    for (const other of others) {
      const seed = other.lookalike ? "a client seed that looks like this one (other bytes)" : "this client seed";
      const when = other.shopped ? `held ${seed} AT THE SAME TIME as this pair, at the same tenant`
        : other.overlap ? `held ${seed} AT THE SAME TIME, at another tenant (brand) of this service: another brand's `
          + "player chose the same seed, or the operator made that tenant to deal your seed twice (a warning)"
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
    parts.push(el("p", { text: "Other seed pairs the service lists with this client seed, or one that looks like it, each "
      + "checked against its own entries in the transparency log"
      + `${body.truncated ? " (the first 100 it lists; it says every one that overlaps this pair is among them)" : ""}:` }), list);
    if (!shopped.length && !foreign.length) {
      parts.push(el("p", { class: "note", "data-same-seed-note": "" },
        "None of them held it while this pair was live, so no deal could have been dealt on both and the better one "
        + "shown. A seed held before this pair got it, or after its reveal, is a kept or a common seed. This list is the "
        + "service's: a pair it leaves out, only a monitor you keep, reading the whole log, would name."));
    }
  }
  if (foreign.length && !shopped.length) {
    parts.push(el("p", { class: "warning", role: "status", "data-other-tenant": String(foreign.length) },
      el("strong", { text: "Warning: " }),
      `this client seed${foreign.some((o) => o.lookalike) ? ", or one that looks like it," : ""} was live on ${foreign.length} `
      + `pair${foreign.length === 1 ? "" : "s"} of another tenant (brand) of this service while this pair was dealing. `
      + "If another brand's player chose the same seed, that is chance (a common seed) and harmless. But the tenant is "
      + "an opaque id the operator makes, so this page cannot tell a real second brand from one made to deal your seed "
      + "twice and show you the better hand. Choose a seed of your own that no one else would (the page's seed generator "
      + "makes one), and ask the operator which brand that is."));
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
  if (held.unread.length) {
    // Never a PASS while a pair listed with this seed hides when it was live (looked at again).
    parts.unshift(unansweredCheckEl("same client seed holders", "entries not served"));
    parts.push(el("p", { class: "note", "data-same-seed-unread": String(held.unread.length) },
      `The log entries of ${held.unread.length} pair${held.unread.length === 1 ? "" : "s"} the service lists with this client `
      + "seed did not answer, so whether they held it at the same time is not shown yet. The page looks again by itself."));
  }
  if (held.unverified.length) {
    parts.push(el("p", { class: "warning", role: "status", "data-same-seed-unverified": String(held.unverified.length) },
      el("strong", { text: "Warning: " }),
      `${held.unverified.length} more pair${held.unverified.length === 1 ? "" : "s"} the service lists with this client seed `
      + `${held.unverified.length === 1 ? "was" : "were"} not held to the log here (the page reads ${MAX_HELD_OTHERS} at most): `
      + "whether they held it at the same time is not shown."));
  }
  if (held.bogus.length) {
    parts.push(el("p", { class: "note", "data-same-seed-bogus": String(held.bogus.length) },
      `The service also lists ${held.bogus.length} pair${held.bogus.length === 1 ? "" : "s"} whose log entries do not show `
      + "this client seed; they are left out."));
  }
  return { parts, shopped, foreign, unverified: held.unverified, waiting: held.unread.length > 0 };
}

/** How many of the pairs `same-client-seed` lists are held to the log, at most. */
const MAX_HELD_OTHERS = 12;

/**
 * When a pair was live and whose it is, from its own log entries: `{ from,
 * until, tenant, lookalike }` (from: its `client_seed` entry's index; until:
 * its `reveal` entry's, or null while live; tenant: its `commit` entry's),
 * `{ bogus: true }` when its client seed entry is not this seed, or
 * `{ unverified: true }` when an entry could not be read.
 */
async function heldPair(id, exact, lookalike, revealed) {
  const path = `/v1/seed-pairs/${encodeURIComponent(id)}/receipt`;
  const seeded = await logChecks(`${path}?entry=client_seed`, (entry) => entry.type === "client_seed" && entry.seed_pair === id
    && (entry.client_seed_sha256 === exact || (Boolean(lookalike) && entry.client_seed_lookalike_sha256 === lookalike)),
  { name: "holder" });
  if (seeded.some(awaitingLog) || !seeded.length) return { unverified: true };
  if (seeded.some(failedLog)) return { bogus: true };
  const ended = await revealedAt(id, revealed);
  if (ended.unverified) return ended;
  const committed = await logChecks(path, (entry) => entry.type === "commit" && entry.seed_pair === id, { name: "holder" });
  if (committed.some(awaitingLog) || committed.some(failedLog)) return { unverified: true };
  return {
    from: loggedIndex(seeded),
    until: ended.until,
    tenant: committed.entry ? committed.entry.tenant : undefined,
    lookalike: seeded.entry.client_seed_sha256 !== exact,
  };
}

/**
 * Where pair `id` stopped being live, from its `reveal` (or `table_void`)
 * entry: `{ until }` (null: live), or `{ unverified: true }`. A pair the
 * service calls live (`revealed` false) is taken as live, and so is one
 * whose reveal the log does not hold (404): a lie there only makes it
 * overlap more.
 */
async function revealedAt(id, revealed) {
  if (!revealed) return { until: null };
  const entry = await logChecks(`/v1/seed-pairs/${encodeURIComponent(id)}/receipt?entry=reveal`,
    (e) => (e.type === "reveal" || e.type === "table_void") && e.seed_pair === id, { name: "holder", required: false });
  if (entry.some(awaitingLog) || entry.some(failedLog)) return { unverified: true };
  return { until: entry.length ? loggedIndex(entry) : null };
}

/**
 * `same-client-seed`'s answer with every interval and tenant taken from the
 * log's entries instead of the service's word: this pair's from its own
 * entries (`entries`, pairEntryChecks'), each listed pair's from its
 * (heldPair), at most MAX_HELD_OTHERS; the rest, and those whose entries
 * did not answer, `unverified` (a warning); those whose entries do not show
 * the seed, `bogus` (left out).
 */
async function heldToLog(pair, entries, body) {
  const exact = String(body.client_seed_sha256 || "");
  const lookalike = entries && entries.clientSeedEntry ? entries.clientSeedEntry.client_seed_lookalike_sha256 : null;
  const ours = entries && Number.isSafeInteger(entries.clientSeedIndex) ? entries.clientSeedIndex : null;
  const saysRevealed = (p) => Boolean(p) && (p.status === "revealed" || p.status === "void" || Number.isSafeInteger(p.reveal_log_index));
  // This pair's client seed and commit entries are pairEntryChecks' already: only its reveal is read here.
  const ourEnd = await revealedAt(pair.id, saysRevealed(body.pair));
  const tenant = entries && entries.commitEntry ? entries.commitEntry.tenant : undefined;
  const asOfLog = (held) => ({
    client_seed_log_index: held.from,
    reveal_log_index: held.until,
    status: held.until === null ? "active" : "revealed",
  });
  const self = asOfLog({ from: ours, until: ourEnd.unverified ? null : ourEnd.until });
  const others = [];
  const unverified = []; // beyond MAX_HELD_OTHERS: not read
  const unread = []; // their entries did not answer
  const bogus = [];
  const listed = Array.isArray(body.others) ? body.others : [];
  for (const [i, other] of listed.entries()) {
    if (!other || typeof other.seed_pair !== "string") continue;
    if (i >= MAX_HELD_OTHERS) {
      unverified.push(other);
      continue;
    }
    const held = await heldPair(other.seed_pair, exact, lookalike, saysRevealed(other));
    if (held.bogus) bogus.push(other);
    else if (held.unverified) unread.push(other);
    else {
      others.push({ ...other, ...asOfLog(held), lookalike: held.lookalike,
        same_tenant: held.tenant === undefined || tenant === undefined ? true : held.tenant === tenant });
    }
  }
  return { body: { ...body, pair: { ...body.pair, ...self }, others }, unverified, unread, bogus };
}
