//! One cursor shape for every listing (pairs, a pair's rounds, draws): an
//! opaque string, `next_cursor` in a page, given back as `cursor` for the
//! next one, in either order (`order=oldest`, the default, or `newest`).
//! A cursor carries its listing and its order, so it cannot continue
//! another listing, or this one the other way. The listings' first
//! cursors (`next_after`: a string for pairs, a nonce for rounds, a number
//! in a string for draws) stay for `/v1`, deprecated; a pair's rounds keep
//! `after` as a seek to a nonce.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::service::http::error::ApiError;
use crate::service::store::Order;

/// Which end a listing starts from.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ListOrder {
    /// The first made first (a pair's rounds: nonce 0 first).
    #[default]
    Oldest,
    /// The last made first.
    Newest,
}

impl From<ListOrder> for Order {
    fn from(order: ListOrder) -> Self {
        match order {
            ListOrder::Oldest => Order::Oldest,
            ListOrder::Newest => Order::Newest,
        }
    }
}

/// The listing a cursor belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    Pairs,
    Rounds,
    Draws,
}

impl Listing {
    fn tag(self) -> &'static str {
        match self {
            Listing::Pairs => "pairs",
            Listing::Rounds => "rounds",
            Listing::Draws => "draws",
        }
    }
}

const VERSION: &str = "c1";

fn order_tag(order: Order) -> &'static str {
    match order {
        Order::Oldest => "oldest",
        Order::Newest => "newest",
    }
}

/// The cursor of the page after the one that ended at `key` (the listing's
/// own position: a pair's `created_at.id`, a nonce, a draw's sequence).
pub fn next(listing: Listing, order: Order, key: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!(
        "{VERSION} {} {} {key}",
        listing.tag(),
        order_tag(order)
    ))
}

/// Where a page starts: its order and the key it continues after, from the
/// query's `order` and `cursor`, and whether the deprecated `after` was
/// given too (it pages oldest first only, and never beside a cursor). The
/// key is checked by `key_ok`.
pub fn start(
    listing: Listing,
    order: Option<ListOrder>,
    cursor: Option<&str>,
    after_given: bool,
    key_ok: impl Fn(&str) -> bool,
) -> Result<(Order, Option<String>), ApiError> {
    let Some(cursor) = cursor else {
        let order = order.unwrap_or_default().into();
        if after_given && order == Order::Newest {
            return Err(ApiError::invalid(
                "after",
                "is for order=oldest only (deprecated): use cursor",
            ));
        }
        return Ok((order, None));
    };
    if after_given {
        return Err(ApiError::invalid(
            "cursor",
            "give cursor or the deprecated after, not both",
        ));
    }
    let unusable = || {
        ApiError::invalid(
            "cursor",
            format!(
                "must be the next_cursor of an earlier page of this listing ({})",
                listing.tag()
            ),
        )
    };
    let text = URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(unusable)?;
    let mut parts = text.splitn(4, ' ');
    let (Some(VERSION), Some(tag), Some(direction), Some(key)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(unusable());
    };
    if tag != listing.tag() || !key_ok(key) {
        return Err(unusable());
    }
    let cursor_order = match direction {
        "oldest" => Order::Oldest,
        "newest" => Order::Newest,
        _ => return Err(unusable()),
    };
    if let Some(order) = order
        && Order::from(order) != cursor_order
    {
        return Err(ApiError::invalid(
            "order",
            format!(
                "must be the cursor's own order ({}): a cursor continues the listing it came \
                 from; leave order out, or start again without the cursor",
                order_tag(cursor_order)
            ),
        ));
    }
    Ok((cursor_order, Some(key.to_owned())))
}

/// A whole number a cursor's key holds: a nonce or a sequence, 0 or more.
pub fn whole(key: &str) -> Option<i64> {
    key.parse::<i64>()
        .ok()
        .filter(|n| *n >= 0 && n.to_string() == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_continues_its_own_listing_in_its_own_order() {
        let cursor = next(Listing::Rounds, Order::Newest, "41");
        let (order, key) = start(Listing::Rounds, None, Some(&cursor), false, |k| {
            whole(k).is_some()
        })
        .expect("ok");
        assert_eq!((order, key.as_deref()), (Order::Newest, Some("41")));
        // The same order given is fine; the other is refused naming order.
        assert!(
            start(
                Listing::Rounds,
                Some(ListOrder::Newest),
                Some(&cursor),
                false,
                |_| true
            )
            .is_ok()
        );
        let other = start(
            Listing::Rounds,
            Some(ListOrder::Oldest),
            Some(&cursor),
            false,
            |_| true,
        )
        .expect_err("other order");
        assert!(format!("{other:?}").contains("order"), "{other:?}");
        // Another listing's cursor, a forged one, and cursor with after.
        for (listing, text, after) in [
            (Listing::Draws, cursor.clone(), false),
            (
                Listing::Rounds,
                URL_SAFE_NO_PAD.encode("c1 rounds newest -1"),
                false,
            ),
            (Listing::Rounds, "not a cursor!".to_owned(), false),
            (Listing::Rounds, cursor.clone(), true),
        ] {
            let refused = start(listing, None, Some(&text), after, |k| whole(k).is_some());
            assert!(refused.is_err(), "{text}");
        }
        // Without a cursor: the order asked for, from the start.
        assert_eq!(
            start(Listing::Pairs, Some(ListOrder::Newest), None, false, |_| {
                false
            })
            .expect("ok"),
            (Order::Newest, None)
        );
        assert_eq!(whole("007"), None);
    }
}
