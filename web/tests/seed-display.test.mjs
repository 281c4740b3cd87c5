// How the page shows someone else's strings (web/seed-display.mjs): every
// character outside printable ASCII marked, invisible and bidi characters
// only as their mark, and no two strings shown alike; labels in sentences as
// parts of their own. Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  shownSegments, shownText, hasMarkedCharacters, markedTextEl, markOf, MARKED_NOTE,
  seatNameParts, quotedListParts, renderShownParts, shownPartsText, shownLabel,
} from "../seed-display.mjs";

const INVISIBLE_OR_BIDI = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{M}\p{Z}\p{Default_Ignorable_Code_Point}]/u;

/** Reads shown text back to the string it shows; throws on anything shownText cannot produce. */
function readBack(text) {
  const chars = Array.from(text);
  let out = "";
  for (let i = 0; i < chars.length;) {
    const ch = chars[i];
    const cp = ch.codePointAt(0);
    const markAt = (j) => {
      const rest = chars.slice(j).join("");
      const m = /^\u27e8U\+([0-9A-F]{4,6})\u27e9/u.exec(rest);
      return m ? { cp: parseInt(m[1], 16), length: Array.from(m[0]).length } : null;
    };
    if (cp >= 0x20 && cp <= 0x7e) {
      out += ch;
      i += 1;
      continue;
    }
    const own = markAt(i);
    if (own) { // a mark alone: an invisible character (or a marked space)
      out += String.fromCodePoint(own.cp);
      i += own.length;
      continue;
    }
    const after = markAt(i + 1); // a shown character, then its own mark
    assert.ok(after && after.cp === cp, `a raw ${markOf(cp)} must be followed by its mark in ${JSON.stringify(text)}`);
    out += ch;
    i += 1 + after.length;
  }
  return out;
}

test("marks zero-width, bidi and lookalike characters; two different strings never show alike", () => {
  assert.equal(shownText("player-7f3a9c"), "player-7f3a9c");
  assert.equal(shownText("player-7f3a9c\u200b"), "player-7f3a9c\u27e8U+200B\u27e9");
  assert.notEqual(shownText("player"), shownText("player\u200b"));
  assert.notEqual(shownText("player"), shownText("play\u200cer"));
  assert.notEqual(shownText("player"), shownText("\ufeffplayer"));
  assert.notEqual(shownText("player"), shownText("player\u2060"));

  // Cyrillic а (U+0430) for Latin a.
  const cyrillic = "dr\u0430nd-8f3c2a91";
  assert.notEqual(shownText(cyrillic), shownText("drand-8f3c2a91"));
  assert.equal(shownText(cyrillic), "dr\u0430\u27e8U+0430\u27e9nd-8f3c2a91");
  assert.equal(shownText("\u0430"), "\u0430\u27e8U+0430\u27e9");

  // A right-to-left override would show "\u202e!NIW" as "WIN!": only its mark is shown, never the character.
  const flipped = shownText("\u202e!NIW");
  assert.equal(flipped, "\u27e8U+202E\u27e9!NIW");
  assert.ok(!flipped.includes("\u202e") && !flipped.includes("WIN!"));
  for (const bidi of ["\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c"]) {
    assert.ok(!shownText(`a${bidi}b`).includes(bidi), markOf(bidi.codePointAt(0)));
  }

  // Composed and decomposed accents differ; a combining mark is never shown raw (it would join the letter before it).
  assert.equal(shownText("caf\u00e9"), "caf\u00e9\u27e8U+00E9\u27e9");
  assert.equal(shownText("cafe\u0301"), "cafe\u27e8U+0301\u27e9");
  assert.notEqual(shownText("caf\u00e9"), shownText("cafe\u0301"));

  // Spaces that the eye loses: at either end, or a second one in a row.
  assert.equal(shownText("ben b"), "ben b");
  assert.notEqual(shownText("player"), shownText("player "));
  assert.notEqual(shownText("player"), shownText(" player"));
  assert.notEqual(shownText("a b"), shownText("a  b"));
  assert.equal(shownText("a  b"), "a \u27e8U+0020\u27e9b");
  assert.notEqual(shownText("a b"), shownText("a\u00a0b")); // no-break space
});

test("the marks' own brackets are marked, so a string cannot imitate a mark", () => {
  const fake = "player\u27e8U+200B\u27e9";
  assert.notEqual(shownText(fake), shownText("player\u200b"));
  assert.equal(readBack(shownText(fake)), fake);
  // Nor can ASCII look like a mark: a mark always starts with U+27E8.
  assert.notEqual(shownText("player<U+200B>"), shownText("player\u200b"));
});

test("segments: ASCII runs, then each other code point with its glyph or mark only", () => {
  assert.deepEqual(shownSegments(""), []);
  assert.deepEqual(shownSegments("abc"), [{ text: "abc" }]);
  assert.deepEqual(shownSegments("a\u200bb"), [{ text: "a" }, { text: "", codepoint: 0x200b }, { text: "b" }]);
  assert.deepEqual(shownSegments("\u{1f0a1} lucky"), [{ text: "\u{1f0a1}", codepoint: 0x1f0a1 }, { text: " lucky" }]);
  assert.deepEqual(shownSegments("x\ud800"), [{ text: "x" }, { text: "", codepoint: 0xd800 }]); // a lone surrogate
  assert.deepEqual(shownSegments("\u0430"), [{ text: "\u0430", codepoint: 0x430 }]);
  assert.deepEqual(shownSegments("\u{e0041}"), [{ text: "", codepoint: 0xe0041 }]); // a tag character
  assert.equal(markOf(0x41), "\u27e8U+0041\u27e9");
  assert.equal(markOf(0x1f0a1), "\u27e8U+1F0A1\u27e9");
  assert.equal(hasMarkedCharacters("lucky7"), false);
  assert.equal(hasMarkedCharacters("lucky7\u200b"), true);
  assert.equal(hasMarkedCharacters("lucky 7 "), true);
  assert.match(MARKED_NOTE, /outside plain ASCII; they are marked/);
});

test("shown text reads back to exactly the string, and shows no invisible or bidi character raw", () => {
  const alphabet = ["a", "b", " ", "-", "\u200b", "\u200c", "\u2060", "\ufeff", "\u202e", "\u2066", "\u0430", "\u0301",
    "\u00e9", "\u27e8", "\u27e9", "U", "+", "2", "0", "B", "\u00a0", "\u{1f0a1}", "\ud800", "\u05d0", "\u3164", "\ufe0f", "\n"];
  let seed = 7;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const seen = new Map();
  for (let round = 0; round < 5000; round++) {
    const length = 1 + random(8);
    let text = "";
    for (let i = 0; i < length; i++) text += alphabet[random(alphabet.length)];
    const shown = shownText(text);
    assert.equal(readBack(shown), text, JSON.stringify(text));
    const earlier = seen.get(shown);
    assert.ok(earlier === undefined || earlier === text, `${JSON.stringify(earlier)} and ${JSON.stringify(text)} both show as ${shown}`);
    seen.set(shown, text);
    // Outside the marks, no invisible, bidi or combining character.
    const outsideMarks = shown.replace(/\u27e8U\+[0-9A-F]{4,6}\u27e9/gu, "");
    assert.ok(!INVISIBLE_OR_BIDI.test(outsideMarks), `${JSON.stringify(text)} shows ${JSON.stringify(shown)}`);
  }
});

/** Just enough of a DOM for the renderer. */
class FakeNode {
  constructor(tag, text = null) {
    this.tagName = tag;
    this.children = [];
    this.attributes = {};
    this.className = "";
    this.text = text;
  }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  append(...nodes) { this.children.push(...nodes); }
  set textContent(value) { this.children = [new FakeNode("#text", String(value))]; }
  get textContent() { return this.text ?? this.children.map((c) => (typeof c === "string" ? c : c.textContent)).join(""); }
}
const fakeDoc = { createElement: (tag) => new FakeNode(tag), createTextNode: (text) => new FakeNode("#text", text) };

test("the DOM renderer: text nodes only, each mark in its own span, invisible characters never as themselves", () => {
  const node = markedTextEl("pl\u0430yer\u200b", { doc: fakeDoc });
  assert.equal(node.tagName, "code");
  assert.equal(node.className, "label");
  assert.equal(node.attributes.dir, "ltr");
  assert.equal(node.textContent, "pl\u0430\u27e8U+0430\u27e9yer\u27e8U+200B\u27e9");
  const [plain, cyr, rest, zw] = node.children;
  assert.equal(plain.tagName, "#text");
  assert.equal(cyr.className, "cp");
  assert.equal(cyr.attributes["data-codepoint"], "U+0430");
  assert.deepEqual(cyr.children.map((c) => c.className), ["cp-char", "cp-code"]);
  assert.equal(rest.textContent, "yer");
  assert.deepEqual(zw.children.map((c) => c.className), ["cp-code"], "no glyph for U+200B");
  assert.ok(!node.textContent.includes("\u200b"));
  assert.equal(markedTextEl("", { doc: fakeDoc }).textContent, "(empty)");
  assert.equal(markedTextEl("<b>not html</b>", { doc: fakeDoc }).textContent, "<b>not html</b>");
});

test("a label never rewrites the sentence around it", () => {
  const forged = "ben\u201d committed in time. Seat \u201cana";
  const parts = ["Seat ", seatNameParts(forged, 1), " did not commit."];
  const flat = renderShownParts(parts, { doc: fakeDoc });
  // The whole label is one element; the words around it are the page's own.
  assert.deepEqual(flat.filter((p) => typeof p === "string"), ["Seat ", "\u201c", "\u201d (seat 2)", " did not commit."]);
  const labels = flat.filter((p) => typeof p !== "string");
  assert.equal(labels.length, 1);
  assert.equal(labels[0].className, "label");
  // Its curly quotes are marked, so they cannot pass for the page's.
  assert.equal(labels[0].textContent, "ben\u201d\u27e8U+201D\u27e9 committed in time. Seat \u201c\u27e8U+201C\u27e9ana");
  assert.notEqual(shownPartsText(parts), "Seat \u201cben\u201d committed in time. Seat \u201cana\u201d (seat 2) did not commit.");

  assert.deepEqual(quotedListParts(["a"]), ["\u201c", shownLabel("a"), "\u201d"]);
  assert.equal(shownPartsText(quotedListParts(["a", "b", "c"])), "\u201ca\u201d, \u201cb\u201d and \u201cc\u201d");
  assert.equal(shownPartsText(quotedListParts(["a", "b"])), "\u201ca\u201d and \u201cb\u201d");
  assert.equal(shownPartsText(seatNameParts("ben b", 1)), "\u201cben b\u201d (seat 2)");
  assert.equal(renderShownParts([["x", [null, false, ""]], "y"], { doc: fakeDoc }).join(""), "xy");
});
