//! Operator API keys: only a hash of each secret is stored.

use super::rows::KeyRow;
use super::{Constraint, Store};

/// The outcome of storing a new key.
#[derive(Debug, PartialEq, Eq)]
pub enum InsertKey {
    Inserted,
    /// A key (active or revoked) already has this name.
    NameTaken,
}

impl Store {
    pub async fn insert_key(&self, key: &KeyRow) -> Result<InsertKey, sqlx::Error> {
        let result: Result<(), sqlx::Error> = async {
            write_tx!(self, |tx| {
                sqlx::query(
                    "INSERT INTO api_keys (id, name, tenant, secret_hash, created_at) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&key.id)
                .bind(&key.name)
                .bind(&key.tenant)
                .bind(&key.secret_hash)
                .bind(key.created_at)
                .execute(&mut *tx)
                .await?;
            });
            Ok(())
        }
        .await;
        match result {
            Ok(()) => Ok(InsertKey::Inserted),
            Err(err) if Constraint::violated_by(&err) == Some(Constraint::ApiKeysName) => {
                Ok(InsertKey::NameTaken)
            }
            Err(err) => Err(err),
        }
    }

    pub async fn key(&self, id: &str) -> Result<Option<KeyRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", key_columns!(), " FROM api_keys WHERE id = $1");
        with_pool!(self, |pool| {
            sqlx::query_as(SQL).bind(id).fetch_optional(pool).await
        })
    }

    pub async fn keys(&self) -> Result<Vec<KeyRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            key_columns!(),
            " FROM api_keys ORDER BY tenant, created_at, name"
        );
        with_pool!(self, |pool| sqlx::query_as(SQL).fetch_all(pool).await)
    }

    /// Records that key `id` was used at `at` (ms), unless a use within
    /// `every_ms` before it is recorded already: one write a key a minute,
    /// whatever the request rate.
    pub async fn touch_key(&self, id: &str, at: i64, every_ms: i64) -> Result<(), sqlx::Error> {
        write_tx!(self, |tx| {
            sqlx::query(
                "UPDATE api_keys SET last_used_at = $2 WHERE id = $1 \
                 AND (last_used_at IS NULL OR last_used_at <= $3)",
            )
            .bind(id)
            .bind(at)
            .bind(at - every_ms)
            .execute(&mut *tx)
            .await?;
        });
        Ok(())
    }

    /// Revokes the key named `name`; false when there is no such active key.
    pub async fn revoke_key(&self, name: &str, now: i64) -> Result<bool, sqlx::Error> {
        Ok(write_tx!(self, |tx| {
            sqlx::query(
                "UPDATE api_keys SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL",
            )
            .bind(name)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected()
                == 1
        }))
    }
}
