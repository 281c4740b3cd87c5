// How the verification page shows a string someone else chose (a client
// seed, a seat label, a contribution, a list line): so that two different
// strings never look alike, and so that none can pass for the page's own
// words. Self-contained, no import; its elements are made with the document
// it is given (the page's by default), so Node tests it without one.
//
// The rule: printable ASCII (U+0020 to U+007E) is shown as it is, except a
// space at either end or after another space; every other code point is
// marked with its number, ⟨U+XXXX⟩. A character that can be seen (Cyrillic
// "а", "é", an emoji) is shown, then marked: "а⟨U+0430⟩". One that cannot be
// seen or that acts on its neighbours (controls, format and bidi characters
// such as U+200B or U+202E, combining marks, spaces other than U+0020,
// surrogates, private-use and unassigned code points, default-ignorables) is
// shown ONLY as its mark, never as itself: a raw U+202E would reverse the
// text after it, a raw combining mark would join the letter before it.
//
// The marks' brackets (U+27E8, U+27E9) are outside ASCII, so a string that
// contains them has them marked too, and cannot imitate a mark: the shown
// text always reads back to exactly one string (see the tests).

/** The mark's brackets. */
export const MARK_OPEN = "\u27e8";
export const MARK_CLOSE = "\u27e9";

/** The plain words for a string that has marked characters (`what`: "seed", "label", ...). */
export function markedNote(what = "seed") {
  return `this ${what} contains characters outside plain ASCII; they are marked`;
}
export const MARKED_NOTE = markedNote("seed");

/** Shown only as the mark: invisible, bidi, format, combining, non-ASCII space... */
const SHOWN_MARK_ONLY = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{M}\p{Z}\p{Default_Ignorable_Code_Point}\u2800]$/u;

/** U+XXXX, at least four uppercase hex digits, in the mark's brackets. */
export function markOf(codepoint) {
  return `${MARK_OPEN}U+${codepoint.toString(16).toUpperCase().padStart(4, "0")}${MARK_CLOSE}`;
}

/**
 * A string as segments `{ text, codepoint? }`: runs of printable ASCII as
 * `{ text }`, every other code point as `{ text, codepoint }` where `text`
 * is the character itself when it may be shown, or "" when only its mark
 * may. Spaces at either end, and each space after another, are marked too
 * (`{ text: "", codepoint: 0x20 }`), so that they are not lost to the eye.
 */
export function shownSegments(value) {
  const text = String(value);
  const chars = Array.from(text); // code points; a lone surrogate stays one
  const segments = [];
  let run = "";
  chars.forEach((ch, i) => {
    const cp = ch.codePointAt(0);
    const space = cp === 0x20 && (i === 0 || i === chars.length - 1 || chars[i - 1] === " ");
    if (cp >= 0x20 && cp <= 0x7e && !space) {
      run += ch;
      return;
    }
    if (run) segments.push({ text: run });
    run = "";
    segments.push({ text: space || SHOWN_MARK_ONLY.test(ch) ? "" : ch, codepoint: cp });
  });
  if (run) segments.push({ text: run });
  return segments;
}

/** The segments as one plain string: what the page shows, marks included. */
export function shownText(value) {
  return shownSegments(value).map((s) => (s.codepoint === undefined ? s.text : s.text + markOf(s.codepoint))).join("");
}

/** Whether a string has any marked character (so the page adds MARKED_NOTE). */
export function hasMarkedCharacters(value) {
  return shownSegments(value).some((s) => s.codepoint !== undefined);
}

/**
 * The string as a DOM element (by default `<code class="label" dir="ltr">`):
 * ASCII runs as text nodes; each marked character as
 * `<span class="cp" data-codepoint="U+0430"><span class="cp-char" dir="ltr">а</span><span class="cp-code">⟨U+0430⟩</span></span>`
 * (no cp-char when only the mark may be shown). Text nodes only: nothing is
 * parsed as HTML. Each character sits in its own isolate, so a
 * right-to-left letter cannot reorder the text around it. The empty string
 * shows as a marked "(empty)".
 */
export function markedTextEl(value, { doc = globalThis.document, tag = "code", className = "label" } = {}) {
  const node = doc.createElement(tag);
  node.className = className;
  node.setAttribute("dir", "ltr");
  const segments = shownSegments(value);
  if (!segments.length) {
    const empty = doc.createElement("span");
    empty.className = "cp-code";
    empty.textContent = "(empty)";
    node.append(empty);
    return node;
  }
  for (const segment of segments) {
    if (segment.codepoint === undefined) {
      node.append(doc.createTextNode(segment.text));
      continue;
    }
    const mark = markOf(segment.codepoint);
    const span = doc.createElement("span");
    span.className = "cp";
    span.setAttribute("data-codepoint", mark.slice(1, -1));
    if (segment.text) {
      const glyph = doc.createElement("span");
      glyph.className = "cp-char";
      glyph.setAttribute("dir", "ltr");
      glyph.textContent = segment.text;
      span.append(glyph);
    }
    const code = doc.createElement("span");
    code.className = "cp-code";
    code.textContent = mark;
    span.append(code);
    node.append(span);
  }
  return node;
}

/**
 * Sentences that name someone else's strings are built as parts: fixed
 * words as strings, each foreign string as `{ label: text }`, never spliced
 * into the words (a label `ben” committed in time. Seat “ana` must not
 * rewrite the sentence around it). renderShownParts turns them into nodes.
 */
export const shownLabel = (text) => ({ label: String(text) });

/** A seat as a person names it: “label” (seat N), the label as a part of its own. */
export function seatNameParts(label, index) {
  return ["\u201c", shownLabel(label), `\u201d (seat ${index + 1})`];
}

/** Labels quoted and joined: “a”, “b” and “c”, each label a part of its own. */
export function quotedListParts(labels) {
  const quoted = labels.map((label) => ["\u201c", shownLabel(label), "\u201d"]);
  const parts = [];
  quoted.forEach((q, i) => {
    if (i > 0) parts.push(i === quoted.length - 1 ? " and " : ", ");
    parts.push(...q);
  });
  return parts;
}

/**
 * Parts (strings, `{ label }`, DOM nodes, nested arrays) as a flat list of
 * nodes and strings for an element's children: each label through
 * markedTextEl, strings left for text nodes.
 */
export function renderShownParts(parts, { doc = globalThis.document } = {}) {
  const out = [];
  const walk = (part) => {
    if (part === null || part === undefined || part === false || part === "") return;
    if (Array.isArray(part)) part.forEach(walk);
    else if (typeof part === "object" && !Array.isArray(part) && Object.hasOwn(part, "label") && Object.keys(part).length === 1) {
      out.push(markedTextEl(part.label, { doc }));
    } else out.push(part);
  };
  walk(parts);
  return out;
}

/** Parts as plain text (a title attribute, a test): labels as shownText, quoted by the words around them. */
export function shownPartsText(parts) {
  const flat = [];
  const walk = (part) => {
    if (part === null || part === undefined) return;
    if (Array.isArray(part)) part.forEach(walk);
    else if (typeof part === "object" && Object.hasOwn(part, "label")) flat.push(shownText(part.label));
    else flat.push(String(part));
  };
  walk(parts);
  return flat.join("");
}
