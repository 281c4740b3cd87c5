// "Recompute from values": a deal from typed values, saying exactly what
// was checked.

// ---- Paste values ---------------------------------------------------------

import { bytesToHex, deal, parseNonce, sameInputsAsRound } from "../fairdeal-v1.mjs";
import { knownRounds, plainVerdictEl, verdictEl, wordVerdictEl } from "./lookup.js";
import { tableCheckEl } from "./tables.js";
import { checkEl, dealEl, el, fact, gameText, quoted, showError, shownFact } from "./views.js";

export function showGameFields() {
  const type = document.getElementById("game").value;
  document.getElementById("players-field").hidden = type === "deck";
  document.getElementById("cards-field").hidden = type !== "hands";
  document.getElementById("decks-field").hidden = !(type === "deck" || type === "hands");
}

/**
 * "Recompute from values": deals from the typed values and says exactly what
 * was checked. The server seed against the commitment typed (or the
 * commitment of a round this page has read) is one check; the cards are what
 * these values deal, which proves a hand only when the client seed, nonce and
 * game are the round's. Those are compared when this page has read the
 * round's record (looked up above); otherwise they are said to be unchecked,
 * and there is no overall PASS.
 */
export async function recompute(event) {
  event.preventDefault();
  const target = document.getElementById("paste-result");
  const value = (id) => document.getElementById(id).value;
  const type = value("game");
  const game = { type };
  if (type !== "deck") game.players = value("players");
  if (type === "hands") game.cards = value("cards");
  if (type === "deck" || type === "hands") game.decks = value("decks");
  const clientSeed = value("client-seed");
  try {
    const out = await deal({ serverSeed: value("server-seed"), clientSeed, nonce: value("nonce"), game });
    const nonce = String(parseNonce(value("nonce")));
    const facts = el("dl", { class: "facts" });
    fact(facts, "Game", gameText(out.game));
    shownFact(facts, "Client seed", clientSeed, { copyable: true });
    fact(facts, "Nonce", nonce);
    fact(facts, "SHA-256 of the seed", out.server_seed_hash, true);
    const published = value("commitment").trim().toLowerCase();
    const matches = published === out.server_seed_hash;
    const round = knownRounds.get(`${out.server_seed_hash}:${nonce}`) || null;
    const same = round ? sameInputsAsRound(out, { clientSeed, nonce }, round) : null;
    const roundValues = same ? same.clientSeed && same.nonce && same.game : null;
    const code = (text) => el("code", { text });
    const roundId = round ? el("a", { href: `?round=${encodeURIComponent(round.id)}`, class: "mono", text: round.id }) : null;

    // What was checked, one claim each.
    const checks = el("div", { class: "checks" });
    const claims = el("ul", { class: "paste-claims", "data-paste-claims": "" });
    const claim = (name, result, ...parts) => claims.append(el("li", { "data-claim": name, "data-result": result }, parts));
    if (published) {
      checks.append(checkEl("commitment", matches, `SHA-256 of this seed is ${out.server_seed_hash}`));
      claim("commitment", matches ? "pass" : "fail", matches
        ? ["✔ The server seed matches the commitment you typed: its SHA-256 is ", code(out.server_seed_hash), "."]
        : ["✘ The server seed does not match the commitment you typed (details below)."]);
    } else if (round) {
      checks.append(checkEl("commitment", true, `SHA-256 of this seed is ${out.server_seed_hash}, round ${round.id}'s commitment`));
      claim("commitment", "pass", "✔ The server seed matches the commitment of round ", roundId,
        ", read above: its SHA-256 is ", code(out.server_seed_hash), ".");
    } else {
      checks.append(tableCheckEl("commitment", "pending", "commitment: not checked", "no commitment was typed"));
      claim("commitment", "pending", "Not checked: no commitment was typed, so nothing shows that this server seed is the one "
        + "the operator committed to. Its SHA-256 is ", code(out.server_seed_hash), "; compare it with the published commitment.");
    }
    claim("cards", "computed", "The cards below are what this server seed, the client seed ", quoted(clientSeed),
      ` and nonce ${nonce} deal in fairdeal-v1 (${gameText(out.game)}).`);
    if (round) {
      const differ = [!same.clientSeed && "client seed", !same.game && "game"].filter(Boolean);
      checks.append(tableCheckEl("round-values", roundValues ? "pass" : "fail",
        roundValues ? "client seed, nonce and game are the round's" : `${differ.join(" and ")} not the round's`,
        `round ${round.id}, nonce ${round.nonce}`));
      if (roundValues) {
        claim("round", "pass", "✔ The client seed, nonce and game are the ones round ", roundId, " recorded, so these are "
          + "the cards its values deal", same.cards === false ? "; but the round's record shows other cards (see its check above)."
          : same.cards ? ", and the round's record shows exactly these cards." : ".");
      } else {
        claim("round", "fail", "✘ Round ", roundId, ` (this server seed, nonce ${round.nonce}) was dealt with `,
          !same.clientSeed ? ["the client seed ", quoted(round.client_seed)] : "your client seed",
          !same.game ? `, ${round.game ? gameText(round.game) : "another game"}` : "",
          `: your ${differ.join(" and ")} ${differ.length > 1 ? "are" : "is"} not the round's, so these are not its cards.`);
      }
    } else {
      checks.append(tableCheckEl("round-values", "pending", "client seed and nonce: not checked",
        "this page has not read the round's record"));
      claim("round", "pending", "Not checked here: whether the client seed and nonce are the ones your round used. These "
        + "cards are your hand if they are. This page has not read the round's record: look the round up above (which checks "
        + "everything), or compare them with it yourself.");
    }

    // The verdict: no overall PASS for a partial check.
    let verdict;
    if (published && !matches) {
      verdict = verdictEl("fail", "The seed does not match the commitment you typed: these are not the committed cards.");
    } else if (round && !roundValues) {
      verdict = wordVerdictEl("partial", "NOT THE ROUND'S VALUES", "The server seed is round ", roundId,
        "'s, but the other values are not the ones it recorded: these are not its cards (details below).");
    } else if (round && same.cards === false) {
      verdict = verdictEl("fail", "These are round ", roundId, "'s values, but its record shows other cards than they deal.");
    } else if (round) {
      verdict = verdictEl("pass", "The server seed matches round ", roundId, "'s commitment, and the client seed, nonce and "
        + `game are the ones it recorded: these are the cards its values deal${same.cards ? ", as its record shows" : ""}.`);
    } else if (published) {
      verdict = plainVerdictEl("partial", "SEED MATCHES", "These are the committed seed's cards for the client seed and "
        + "nonce you typed.", "The server seed is the one committed to, and these are the cards it deals with the client "
        + "seed and nonce you typed. They are your hand if those are your round's: look the round up above to check that "
        + "too (below: what each value proves).");
    } else {
      verdict = wordVerdictEl("pending", "NOT CHECKED", "No commitment was typed: these are the cards these values deal, "
        + "and nothing here shows they are a round's (below).");
    }
    const parts = [verdict, checks, claims, facts];
    if (published && !matches) {
      parts.push(el("p", { class: "error", "data-explain": "commitment" },
        "You typed the commitment ", el("code", { text: published }),
        "; this seed's SHA-256 is ", el("code", { text: out.server_seed_hash }),
        ". A seed that does not hash to the published commitment is not the seed the operator promised."));
      parts.push(el("details", { class: "unverified" },
        el("summary", { text: "Show what this seed would deal anyway (not the committed deal)" }),
        dealEl(out.deal)));
    } else {
      parts.push(dealEl(out.deal));
    }
    target.replaceChildren(...parts);
  } catch (error) {
    showError(target, error);
  }
}

/**
 * Puts a random client seed in the field. A seed typed or pasted there
 * before is not lost to one tap: a button offers to put it back.
 */
export function newClientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const input = document.getElementById("client-seed");
  const previous = input.value;
  input.value = bytesToHex(bytes);
  const undo = document.getElementById("seed-undo");
  if (undo) {
    undo.hidden = !previous.trim();
    undo.textContent = `Put back \u201c${previous}\u201d`;
    undo.onclick = () => {
      input.value = previous;
      undo.hidden = true;
      input.focus();
    };
  }
  input.focus();
}
