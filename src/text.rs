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
        if c.is_whitespace() {
            if position == 0 || position + 1 == count || previous_space {
                return Some(Invisible {
                    position,
                    code_point: u32::from(c),
                    rule: "white space at either end, or after another (it does not show)",
                });
            }
            previous_space = true;
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

/// The lookalike-folded form: invisible and blank characters removed,
/// NFKC, white space trimmed and each run of it one space, then the UTS #39
/// skeleton (each character replaced by the prototype of its confusables:
/// Cyrillic `а` becomes Latin `a`, capital `I` becomes `l`, `0` becomes
/// `O`), lower case (Unicode's full mapping), and the skeleton again. The
/// skeleton comes first so that lower-casing cannot undo a confusable of a
/// capital (`I`/`l`, `O`/`0`); the second one folds what lower case made.
/// Two strings that look alike fold alike; the form is for comparing,
/// never for showing.
pub fn lookalike_fold(text: &str) -> String {
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
