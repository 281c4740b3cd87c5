//! What a user's string looks like: the service's rule for text a player
//! reads and compares (client seeds, seat labels), its lookalike-folded form,
//! and how a terminal shows it so that no string can pass for another.
//!
//! The protocol takes any client seed without control characters, byte for
//! byte, and verifiers still do: this is the service's policy for the seeds it
//! accepts from now on, not a protocol rule. A seed that renders like another
//! (an invisible character inside, a bidi override, a decomposed accent) lets
//! an operator who knows the server seed relay a variant of the player's seed
//! that deals what it likes, while every page shows the player's seed.

use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::is_nfc;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory as _};

/// Why a string is refused: the character at fault (by its position in
/// characters, from 0, and its code point) and the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invisible {
    /// Position in characters (not bytes), from 0; for a string not in NFC,
    /// the first character that normalisation changes.
    pub position: usize,
    pub code_point: u32,
    pub rule: &'static str,
}

impl std::fmt::Display for Invisible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "must show as it is: U+{:04X} at character {} (from 0) is {}",
            self.code_point, self.position, self.rule
        )
    }
}

/// Whether `c` is a Default_Ignorable_Code_Point (Unicode's
/// DerivedCoreProperties.txt) that is not of general category Cf (those are
/// refused as format characters): fillers, variation selectors and the
/// ranges reserved as ignorable. Every one renders as nothing.
fn ignorable_not_format(c: char) -> bool {
    matches!(u32::from(c),
        0x034F | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F | 0x2065
        | 0x3164 | 0xFE00..=0xFE0F | 0xFFA0 | 0xFFF0..=0xFFF8 | 0xE0000..=0xE0FFF)
}

/// Characters that render as nothing or change how the text around them is
/// shown: format characters (Cf: zero-width spaces and joiners, the BOM,
/// bidi embeddings, overrides, isolates and marks, tags), the other
/// default-ignorable code points, and line and paragraph separators.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || ignorable_not_format(c)
}

/// Characters that render as a blank or as nothing in particular: the
/// braille blank (U+2800), the musical null notehead (U+1D159), private-use
/// code points (their glyph is whatever a
/// font says) and code points not yet assigned.
fn blank_or_unknown(c: char) -> bool {
    matches!(c, '\u{2800}' | '\u{1D159}')
        || matches!(
            c.general_category(),
            GeneralCategory::PrivateUse | GeneralCategory::Unassigned
        )
}

/// The rule for text that a player reads and compares: no invisible, format
/// or bidi character ([`is_invisible`]), no blank or unassigned one, no
/// white space at either end or two in a row (a trailing space shows as
/// nothing), and in Unicode NFC (so an accent is written one way). `None`
/// when `text` keeps the rule.
pub fn invisible(text: &str) -> Option<Invisible> {
    let mut previous_space = false;
    let count = text.chars().count();
    // A mark that composes is reported as text not in NFC, below.
    let nfc = is_nfc(text);
    for (position, c) in text.chars().enumerate() {
        if c.is_control() {
            return Some(Invisible {
                position,
                code_point: u32::from(c),
                rule: "a control character",
            });
        }
        if position == 0 && c.general_category_group() == GeneralCategoryGroup::Mark {
            return Some(Invisible {
                position,
                code_point: u32::from(c),
                rule: "a combining mark with nothing before it (it attaches to whatever is shown before the text)",
            });
        }
        if nfc && is_overlay_mark(c) {
            return Some(Invisible {
                position,
                code_point: u32::from(c),
                rule: "a combining mark drawn over, under or around the character before it \
                       that does not compose with it into one letter (it can make one letter \
                       look like another)",
            });
        }
        if c.is_whitespace() {
            if position == 0 || position + 1 == count || previous_space {
                return Some(Invisible {
                    position,
                    code_point: u32::from(c),
                    rule: "white space at either end, or after another (it does not show)",
                });
            }
            previous_space = true;
            if c != ' ' && c.general_category() == GeneralCategory::SpaceSeparator {
                return Some(Invisible {
                    position,
                    code_point: u32::from(c),
                    rule: "a space other than the plain space U+0020 (it can show as a gap of \
                           another width, or as a dash: the Ogham space mark)",
                });
            }
        } else {
            previous_space = false;
        }
        if blank_or_unknown(c) {
            return Some(Invisible {
                position,
                code_point: u32::from(c),
                rule: "blank, private-use or unassigned (it shows as nothing, or as anything)",
            });
        }
        if is_invisible(c) {
            let rule = match c.general_category() {
                GeneralCategory::Format => {
                    "a format character (invisible, or it reorders the text around it)"
                }
                GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
                    "a line or paragraph separator"
                }
                _ => "a default-ignorable code point (it renders as nothing)",
            };
            return Some(Invisible {
                position,
                code_point: u32::from(c),
                rule,
            });
        }
    }
    if !is_nfc(text) {
        let normal: Vec<char> = text.nfc().collect();
        let (position, c) = text
            .chars()
            .enumerate()
            .find(|&(i, c)| normal.get(i) != Some(&c))
            .unwrap_or((0, text.chars().next().unwrap_or('\0')));
        return Some(Invisible {
            position,
            code_point: u32::from(c),
            rule: "where the text is not in Unicode NFC (write it composed, as a keyboard does)",
        });
    }
    None
}

/// The lookalike-folded form: [`lookalike_fold_v2`] (what the text looks
/// like, in lower case), then each character read through [`CASE_MERGES`],
/// so that a capital folds as its small letter does: `AGAIN-X1` as
/// `again-x1`, although the skeleton reads capital `I` as `l` and small `i`
/// as itself.
///
/// "Looks like" (the UTS #39 skeleton) and "is the capital of" are two
/// relations; a form that is one value on both at once must fold `I` with
/// `l` (it looks like one) and with `i` (it is the capital of the other),
/// so `i` folds as `l`. Followed everywhere, the two would also make `h`
/// and `n` one letter (Greek `Η` looks like `H`, its small letter `η` like
/// `n`), and `y` and `u` (`Υ`, `υ`), and refuse seeds nobody could mistake
/// for each other. So the table merges every pair a capital and its small
/// letter fold to unless both are plain ASCII: [`case_apart`] names the
/// capitals left to fold by their looks, each of which looks like one Latin
/// letter while its small letter looks like another.
pub fn lookalike_fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in lookalike_fold_v2(text).chars() {
        match CASE_MERGES.binary_search_by_key(&c, |&(from, _)| from) {
            Ok(i) => folded.push_str(CASE_MERGES[i].1),
            Err(_) => folded.push(c),
        }
    }
    folded
}

/// The characters [`lookalike_fold_v2`] leaves that [`lookalike_fold`]
/// reads as another (sorted by code point): where a capital and its small
/// letter fold apart, what the one folds to is read as the other (`i` as
/// `l`, after capital `I`; `ß` as `b`, after `Β` and `β`; `ȝ` as `3`, after
/// `Ȝ`), except where both are ASCII, and the final sigma `ς` as `σ`
/// folds. Derived from the confusables data by closing over every cased
/// character; the test
/// `a_capital_folds_as_its_small_letter` holds it to that.
pub const CASE_MERGES: &[(char, &str)] = &[
    ('\u{0069}', "l"),
    ('\u{00A9}', "c"),
    ('\u{00AE}', "r"),
    ('\u{00DF}', "b"),
    ('\u{0185}', "b"),
    ('\u{0188}', "c'"),
    ('\u{01A8}', "2"),
    ('\u{021D}', "3"),
    ('\u{0242}', "?"),
    ('\u{025C}', "3"),
    ('\u{0283}', "o"),
    ('\u{0288}', "t"),
    ('\u{0289}', "u"),
    ('\u{0293}', "3"),
    ('\u{029D}', "j"),
    ('\u{03B6}', "z"),
    ('\u{03BB}', "\u{028C}"),
    ('\u{03BC}', "rn"),
    // The final sigma, which lower case gives for Σ at the end of a word.
    ('\u{03C2}', "o"),
    ('\u{03C7}', "x"),
    ('\u{03DD}', "f"),
    ('\u{03FB}', "rn"),
    ('\u{03FC}', "f"),
    ('\u{043B}', "\u{028C}"),
    ('\u{044E}', "lo"),
    ('\u{04B3}', "x"),
    ('\u{050B}', "\u{0195}"),
    ('\u{057F}', "s"),
    ('\u{0583}', "\u{0278}"),
    ('\u{10D5}', "3"),
    ('\u{10F7}', "2"),
    ('\u{1206}', "\u{0574}"),
    ('\u{1261}', "n"),
    ('\u{12AE}', "\u{056B}"),
    ('\u{1323}', "\u{0270}"),
    ('\u{13F8}', "b"),
    ('\u{13FA}', "h"),
    ('\u{16DC}', "o"),
    ('\u{1E9F}', "6"),
    ('\u{1EFB}', "ll"),
    ('\u{2117}', "p"),
    ('\u{2202}', "d"),
    ('\u{2207}', "o"),
    ('\u{2261}', "\u{03BE}"),
    ('\u{2C66}', "t"),
    ('\u{2C68}', "h"),
    ('\u{2C6A}', "k"),
    ('\u{2C76}', "\u{0371}"),
    ('\u{2C87}', "6"),
    ('\u{2D19}', "h"),
    ('\u{2D1D}', "s"),
    ('\u{2D27}', "2"),
    ('\u{A4D5}', "\u{0287}"),
    ('\u{A4E4}', "u"),
    ('\u{A669}', "\u{0298}"),
    ('\u{A72B}', "e"),
    ('\u{A741}', "k"),
    ('\u{A75B}', "2"),
    ('\u{A787}', "\u{2D00}"),
    ('\u{A793}', "e"),
    ('\u{AB78}', "\u{0371}"),
    ('\u{AB79}', "y"),
    ('\u{AB8D}', "y"),
    ('\u{AB8F}', "t"),
    ('\u{AB92}', "h"),
    ('\u{AB97}', "w"),
    ('\u{ABA5}', "s"),
    ('\u{ABB7}', "d"),
    ('\u{102A8}', "\u{A69B}"),
    ('\u{10439}', "\u{A4F6}"),
    ('\u{10447}', "\u{0252}"),
    ('\u{104DC}', "r"),
    ('\u{104E4}', "\u{04C4}"),
    ('\u{104EC}', "p"),
    ('\u{104F5}', "h"),
    ('\u{104F8}', "\u{16E6}"),
    ('\u{104FA}', "7"),
    ('\u{10CE5}', "l"),
    ('\u{118C9}', "z"),
    ('\u{118CF}', "4"),
    ('\u{118D2}', "l"),
    ('\u{118DB}', "5"),
    ('\u{16EC5}', "l"),
];

/// Whether `capital` is one of the capitals [`lookalike_fold`] does not
/// fold as its small letter: its fold and its small letter's are two
/// different ASCII strings (Greek `Η` folds as `h`, `η` as `n`; Cyrillic
/// `Б` as `b`, `б` as `6`; `Ɓ` as `'b`, `ɓ` as `b`). Merging those would
/// make two Latin letters one.
pub fn case_apart(capital: char) -> bool {
    let small: String = capital.to_lowercase().collect();
    let (one, other) = (lookalike_fold(&capital.to_string()), lookalike_fold(&small));
    one != other && one.is_ascii() && other.is_ascii()
}

/// The second lookalike-folded form (before migration 0021): invisible and blank characters removed, the
/// UTS #39 skeleton (each character replaced by the prototype of its
/// confusables: Cyrillic `а` becomes Latin `a`, capital `I` becomes `l`,
/// `0` becomes `O`, the lunate sigma `ϲ` becomes `c`, the Ogham space mark
/// a dash; the skeleton decomposes accents), combining overlay marks
/// removed ([`is_overlay_mark`]: accents, dots, strokes and enclosing
/// circles drawn over or under a character), white space trimmed and each
/// run of it one space, lower case (Unicode's full mapping), NFKC, and the
/// skeleton again with overlay marks removed.
///
/// Everything after the first skeleton reads only the skeleton, so two
/// strings UTS #39 calls confusable (the same skeleton) always fold alike:
/// nothing done before it (NFKC, as in the first form, [`lookalike_fold_v1`])
/// can send a character away from its prototype. The form is for
/// comparing, never for showing.
pub fn lookalike_fold_v2(text: &str) -> String {
    let visible: String = text
        .chars()
        .filter(|&c| !is_invisible(c) && !blank_or_unknown(c))
        .collect();
    let shaped: String = unicode_security::skeleton(&visible)
        .filter(|&c| !is_overlay_mark(c))
        .map(small_capital_letter)
        .collect();
    let spaced = shaped.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower: String = spaced.to_lowercase().nfkc().collect();
    unicode_security::skeleton(&lower)
        .filter(|&c| !is_overlay_mark(c))
        .collect()
}

/// The Latin letter a small capital (`ᴀ`, `ʙ`, `ᴄ` …; `ĸ` and `ʍ`, the
/// skeleton's prototypes of `ᴋ` and `ᴍ`) shows as, in lower case; any
/// other character as it is. The confusables data maps some of these (`ᴄ`
/// to `c`) and not others (`ᴀ`), which look as much alike.
fn small_capital_letter(c: char) -> char {
    match c {
        '\u{1D00}' => 'a',
        '\u{0299}' => 'b',
        '\u{1D04}' => 'c',
        '\u{1D05}' => 'd',
        '\u{1D07}' => 'e',
        '\u{A730}' => 'f',
        '\u{0262}' => 'g',
        '\u{029C}' => 'h',
        '\u{026A}' => 'i',
        '\u{1D0A}' => 'j',
        '\u{1D0B}' | '\u{0138}' => 'k',
        '\u{029F}' => 'l',
        '\u{1D0D}' | '\u{028D}' => 'm',
        '\u{0274}' => 'n',
        '\u{1D0F}' => 'o',
        '\u{1D18}' => 'p',
        '\u{A7AF}' => 'q',
        '\u{0280}' => 'r',
        '\u{A731}' => 's',
        '\u{1D1B}' => 't',
        '\u{1D1C}' => 'u',
        '\u{1D20}' => 'v',
        '\u{1D21}' => 'w',
        '\u{028F}' => 'y',
        '\u{1D22}' => 'z',
        other => other,
    }
}

/// Marks drawn over, under or around the character before them whatever
/// its script: the combining diacritical blocks (U+0300–U+036F,
/// U+1AB0–U+1AFF, U+1DC0–U+1DFF, U+20D0–U+20FF, U+FE20–U+FE2F) and every
/// enclosing mark (Me). A script's own vowel signs and viramas are letters
/// of their words, and are kept.
pub fn is_overlay_mark(c: char) -> bool {
    matches!(u32::from(c),
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
        || c.general_category() == GeneralCategory::EnclosingMark
}

/// The first lookalike-folded form (NFKC before the skeleton, marks kept),
/// as `seat_set` entries written before [`lookalike_fold`] state it: a
/// checker accepts either, since a published entry keeps its bytes.
pub fn lookalike_fold_v1(text: &str) -> String {
    let visible: String = text
        .chars()
        .filter(|&c| !is_invisible(c) && !blank_or_unknown(c))
        .collect();
    let normal: String = visible.nfkc().collect();
    let spaced = normal.split_whitespace().collect::<Vec<_>>().join(" ");
    let shaped: String = unicode_security::skeleton(&spaced).collect();
    let lower: String = shaped.to_lowercase().nfkc().collect();
    unicode_security::skeleton(&lower).collect()
}

/// Lowercase hex SHA-256 of [`lookalike_fold`]: what the log states beside
/// a client seed's own hash, so two seeds that look alike are found alike.
pub fn lookalike_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(lookalike_fold(text).as_bytes()))
}

/// `text` for a terminal, so that no string shows as another: printable
/// ASCII as it is (a backslash doubled), anything else as `\u{…}` after the
/// character if it shows as a glyph, or alone if it is invisible, a control,
/// a space other than U+0020, or unassigned.
/// `None` when `text` is printable ASCII (nothing to mark).
pub fn marked(text: &str) -> Option<String> {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ if is_invisible(c)
                || matches!(
                    c.general_category_group(),
                    GeneralCategoryGroup::Other | GeneralCategoryGroup::Separator
                ) =>
            {
                out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
            }
            _ => {
                out.push(c);
                out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character of the confusables table (each code point whose
    /// UTS #39 skeleton is another string: the table is finite, so all of
    /// it), between two letters of a seed: either the service refuses the
    /// seed, or it folds as the seed with the character's prototype does.
    /// A character that does neither would let two seeds that look alike
    /// be given to two live pairs.
    /// Every overlay mark ([`is_overlay_mark`]: all of them, the ranges
    /// are finite) after a letter: refused, or folded as the letter alone.
    #[test]
    fn every_overlay_mark_is_folded_away_or_refused() {
        let mut kept = Vec::new();
        let mut marks = 0;
        for c in (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_overlay_mark(c))
        {
            marks += 1;
            for base in ['c', 'a', 'o', '1'] {
                let seed = format!("x{base}{c}y");
                if invisible(&seed).is_none()
                    && lookalike_fold(&seed) != lookalike_fold(&format!("x{base}y"))
                {
                    kept.push(format!("U+{:04X}", u32::from(c)));
                }
            }
        }
        assert!(marks > 300, "{marks} marks");
        assert!(kept.is_empty(), "{} kept: {}", kept.len(), kept.join(" "));
    }

    /// The lookalikes a dishonest operator could relay as another player's
    /// seed, each folded as the plain seed.
    #[test]
    fn the_last_lookalikes_fold_as_the_seed_they_imitate() {
        for (imitation, plain) in [
            ("\u{03F2}ard-7", "card-7"),
            ("c\u{1D00}rd-7", "card-7"),
            ("c\u{0323}ard-7", "card-7"),
            ("ca\u{0335}rd-7", "card-7"),
            ("car\u{0336}d-7", "card-7"),
            ("card-7\u{20DD}", "card-7"),
            ("%-7", "\u{00BA}/\u{2080}-7"),
        ] {
            assert_eq!(
                lookalike_fold(imitation),
                lookalike_fold(plain),
                "{imitation:?}"
            );
            assert_eq!(lookalike_sha256(imitation), lookalike_sha256(plain));
        }
        // The Ogham space mark (drawn as a dash) and any space but U+0020
        // are refused in a new seed.
        for space in ['\u{1680}', '\u{00A0}', '\u{3000}', '\u{2009}'] {
            let found = invisible(&format!("card{space}7")).expect("refused");
            assert_eq!((found.position, found.code_point), (4, u32::from(space)));
        }
        // So is a mark that composes with nothing; a composed letter is not.
        assert_eq!(invisible("c\u{0323}ard").map(|f| f.position), Some(1));
        assert_eq!(invisible("caf\u{00E9} \u{1EC7}"), None);
        // Folding stops short of what does not look alike.
        for (one, other) in [
            ("card-7", "card-1"),
            ("\u{0915}\u{093F}", "\u{0915}"),
            ("ab", "a b"),
        ] {
            assert_ne!(
                lookalike_fold(one),
                lookalike_fold(other),
                "{one:?} {other:?}"
            );
        }
    }

    #[test]
    fn small_capitals_fold_as_their_letters() {
        for (capital, letter) in "\u{1D00}\u{0299}\u{1D04}\u{1D05}\u{1D07}\u{A730}\u{0262}\u{029C}\u{026A}\u{1D0A}\u{1D0B}\u{029F}\u{1D0D}\u{0274}\u{1D0F}\u{1D18}\u{A7AF}\u{0280}\u{A731}\u{1D1B}\u{1D1C}\u{1D20}\u{1D21}\u{028F}\u{1D22}"
            .chars()
            .zip("abcdefghijklmnopqrstuvwyz".chars())
        {
            assert_eq!(
                lookalike_fold(&format!("x{capital}y")),
                lookalike_fold(&format!("x{letter}y")),
                "U+{:04X}",
                u32::from(capital)
            );
        }
    }

    /// Every cased character (each whose lower case is another string: the
    /// set is finite, so all of it), between two letters of a seed: refused,
    /// or folded as its small letter, or one of the capitals [`case_apart`]
    /// names, which fold by their looks. On the second form 219 capitals
    /// folded apart (`I`, `Ì` to `Ï`, Greek and Cyrillic capitals among
    /// them), so `AGAIN-X1` and `again-x1` were two seeds.
    #[test]
    fn a_capital_folds_as_its_small_letter() {
        let mut apart = Vec::new();
        let mut escaped = Vec::new();
        let mut cased = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let small: String = c.to_lowercase().collect();
            let seed = format!("x{c}y");
            if small == c.to_string() || c.is_control() || invisible(&seed).is_some() {
                continue;
            }
            cased += 1;
            if lookalike_fold(&seed) == lookalike_fold(&format!("x{small}y")) {
                continue;
            }
            if case_apart(c) {
                apart.push(c);
            } else {
                escaped.push(format!("U+{:04X}", u32::from(c)));
            }
        }
        assert!(cased > 1400, "{cased} cased characters");
        assert!(
            escaped.is_empty(),
            "{} escape: {}",
            escaped.len(),
            escaped.join(" ")
        );
        // The capitals apart are few, and none is a Latin letter of a
        // keyboard's alphabet.
        assert!(apart.len() <= 60, "{} apart: {apart:?}", apart.len());
        assert!(
            apart
                .iter()
                .all(|&c| !c.is_ascii() && !('\u{C0}'..='\u{17F}').contains(&c))
        );
        for (capitals, small) in [
            ("AGAIN-X1", "again-x1"),
            (
                "\u{CC}\u{CD}\u{CE}\u{CF}\u{128}",
                "\u{EC}\u{ED}\u{EE}\u{EF}\u{129}",
            ),
            ("PIAYER", "player"),
            ("STRA\u{1E9E}E", "stra\u{DF}e"),
            ("\u{1E9E}\u{391}\u{392}", "\u{DF}\u{3B1}\u{3B2}"),
            (
                "\u{418}\u{412}\u{410}\u{41D}",
                "\u{438}\u{432}\u{430}\u{43D}",
            ),
        ] {
            assert_eq!(
                lookalike_fold(capitals),
                lookalike_fold(small),
                "{capitals}"
            );
        }
        // Whole strings too, where lower case depends on the letters around
        // (a final sigma) or gives two characters (dotted capital I).
        for text in [
            "\u{3A3}\u{39F}\u{3A3}",
            "x\u{3A3}",
            "\u{130}STANBUL",
            "\u{1E9E}",
            "\u{1F88}\u{1F89}",
        ] {
            if !text.chars().any(case_apart) {
                assert_eq!(
                    lookalike_fold(text),
                    lookalike_fold(&text.to_lowercase()),
                    "{text}"
                );
            }
        }
        // Merging stops short of making two Latin letters one.
        for (one, other) in [("hen", "nen"), ("buy", "byy"), ("bob", "606"), ("7e", "ee")] {
            assert_ne!(lookalike_fold(one), lookalike_fold(other), "{one} {other}");
        }
        // The table is sorted (it is searched) and read once: what it
        // gives is never read again.
        assert!(CASE_MERGES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(CASE_MERGES.iter().all(|(_, to)| {
            to.chars().all(|c| {
                CASE_MERGES
                    .binary_search_by_key(&c, |&(from, _)| from)
                    .is_err()
            })
        }));
    }

    #[test]
    fn every_confusable_is_folded_as_its_prototype_or_refused() {
        let mut escaped = Vec::new();
        let mut table = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let alone = c.to_string();
            let prototype: String = unicode_security::skeleton(&alone).collect();
            if prototype == alone {
                continue;
            }
            table += 1;
            let seed = format!("x{c}y");
            if c.is_control() || invisible(&seed).is_some() {
                continue;
            }
            if lookalike_fold(&seed) != lookalike_fold(&format!("x{prototype}y")) {
                escaped.push(format!("U+{:04X}", u32::from(c)));
            }
        }
        assert!(table > 6000, "the confusables table has {table} entries");
        assert!(
            escaped.is_empty(),
            "{} escape: {}",
            escaped.len(),
            escaped.join(" ")
        );
    }

    #[test]
    fn invisible_and_bidi_characters_are_refused_by_position() {
        for (text, position, code_point) in [
            ("player-7f3a9c\u{200B}", 13, 0x200B),
            ("player\u{2060}-7f3a9c", 6, 0x2060),
            ("\u{FEFF}player-7f3a9c", 0, 0xFEFF),
            ("drand-8f3c\u{200C}2a91", 10, 0x200C),
            ("\u{202E}!NIW", 0, 0x202E),
            ("a\u{2066}b", 1, 0x2066),
            ("a\u{200E}b", 1, 0x200E),
            ("a\u{061C}b", 1, 0x061C),
            ("x\u{034F}", 1, 0x034F),
            ("x\u{FE0F}", 1, 0xFE0F),
            ("x\u{E0041}", 1, 0xE0041),
            ("x\u{3164}", 1, 0x3164),
            ("x\u{2028}", 1, 0x2028),
            ("x\u{00AD}y", 1, 0x00AD),
            ("player ", 6, 0x20),
            (" player", 0, 0x20),
            ("pl  ayer", 3, 0x20),
            ("player\u{00A0}", 6, 0xA0),
            ("player\u{2800}x", 6, 0x2800),
            ("x\u{E000}", 1, 0xE000),
            ("x\u{0378}", 1, 0x0378),
            ("ab\u{1D159}cd", 2, 0x1D159),
            ("a\tb", 1, 0x09),
            ("\u{0301}ab", 0, 0x0301),
        ] {
            let found = invisible(text).unwrap_or_else(|| panic!("{text:?} passed"));
            assert_eq!((found.position, found.code_point), (position, code_point));
        }
    }

    #[test]
    fn text_not_in_nfc_is_refused_at_the_first_change() {
        let found = invisible("cafe\u{301}").expect("decomposed");
        assert_eq!(found.position, 3);
        assert!(found.to_string().contains("NFC"), "{found}");
        assert_eq!(invisible("caf\u{e9}"), None);
    }

    #[test]
    fn ordinary_seeds_in_any_script_pass() {
        for text in [
            "player-7f3a9c",
            "🂡 lucky",
            "chosen by the player",
            "Zoë",
            "日本語のシード",
            "ана",
        ] {
            assert_eq!(invisible(text), None, "{text:?}");
        }
        // The zero-width joiner inside an emoji sequence is a format
        // character like any other: invisible between letters, so refused.
        assert_eq!(
            invisible("\u{1F468}\u{200D}\u{1F469}").map(|i| i.code_point),
            Some(0x200D)
        );
    }

    #[test]
    fn lookalikes_fold_together_and_different_seeds_apart() {
        let base = lookalike_sha256("drand-8f3c2a91");
        for variant in [
            "drand-8f3c2a91\u{200B}",
            "dr\u{2060}and-8f3c2a91",
            "\u{FEFF}drand-8f3c2a91",
            "dr\u{0430}nd-8f3c2a91", // Cyrillic а
            "DRAND-8F3C2A91",
            "ｄｒａｎｄ-8f3c2a91", // fullwidth
            "drand-8f3c2a91 ",
            " drand-8f3c2a91\u{2800}",
        ] {
            assert_eq!(lookalike_sha256(variant), base, "{variant:?}");
        }
        assert_eq!(
            lookalike_sha256("cafe\u{301}"),
            lookalike_sha256("caf\u{e9}")
        );
        assert_eq!(
            lookalike_sha256("\u{0430}n\u{0430}"),
            lookalike_sha256("ana")
        );
        assert_eq!(lookalike_sha256("b\u{0435}n"), lookalike_sha256("ben"));
        assert_ne!(lookalike_sha256("drand-8f3c2a92"), base);
        assert_ne!(lookalike_sha256("lucky7"), lookalike_sha256("lucky8"));
        assert_eq!(
            lookalike_sha256("chosen  by the\u{3000}player"),
            lookalike_sha256("chosen by the player")
        );
        // Capitals whose confusables lower case would undo.
        for (a, b) in [
            ("lQa7", "IQa7"),
            ("KoQ", "K0Q"),
            ("KOQ", "K0Q"),
            ("K\u{0399}x", "Klx"),
            ("Il", "lI"),
            ("ab\u{1D159}cd", "abcd"),
        ] {
            assert_eq!(lookalike_sha256(a), lookalike_sha256(b), "{a:?} {b:?}");
        }
        assert_ne!(lookalike_sha256("ab"), lookalike_sha256("abc"));
    }

    #[test]
    fn a_terminal_shows_every_character_outside_printable_ascii() {
        assert_eq!(marked("player-7f3a9c"), None);
        assert_eq!(marked("player\u{200B}").as_deref(), Some("player\\u{200B}"));
        assert_eq!(marked("\u{202E}!NIW").as_deref(), Some("\\u{202E}!NIW"));
        assert_eq!(marked("\u{0430}").as_deref(), Some("\u{0430}\\u{0430}"));
        // A backslash is doubled, so a seed cannot spell a marker itself.
        assert_ne!(marked("\\u{200B}x\u{e9}"), marked("\u{200B}x\u{e9}"));
    }
}
