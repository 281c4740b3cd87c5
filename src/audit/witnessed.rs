//! A client's witness policy (c2sp.org/tlog-witness, "Clients"): the
//! witnesses it trusts (their cosignature verifier keys) and how many of
//! them must have cosigned a checkpoint before it is trusted. A checkpoint
//! short of that is "not yet witnessed": the operator could be showing it
//! to this client alone (a split view), and nothing is accepted from it.

use crate::tlog::cosignature::CosignatureVerifier;

/// The witnesses a client trusts, and the quorum.
#[derive(Debug)]
pub struct WitnessPolicy {
    verifiers: Vec<CosignatureVerifier>,
    quorum: usize,
}

impl WitnessPolicy {
    /// From the verifier keys given and the quorum (default: all of them);
    /// `None` when no key is given. Errors name the rule.
    pub fn new(
        keys: &[String],
        quorum: Option<usize>,
    ) -> Result<Option<Self>, (&'static str, String)> {
        if keys.is_empty() {
            return match quorum {
                Some(_) => Err((
                    "--witness-quorum",
                    "is taken only with --witness-key".to_owned(),
                )),
                None => Ok(None),
            };
        }
        let mut verifiers = Vec::with_capacity(keys.len());
        for key in keys {
            let verifier = CosignatureVerifier::from_vkey(key)
                .map_err(|e| ("--witness-key", format!("{key:?}: {e:#}")))?;
            if verifiers
                .iter()
                .any(|v: &CosignatureVerifier| v.name() == verifier.name())
            {
                return Err((
                    "--witness-key",
                    format!("names the witness {:?} twice", verifier.name()),
                ));
            }
            verifiers.push(verifier);
        }
        let quorum = quorum.unwrap_or(verifiers.len());
        if !(1..=verifiers.len()).contains(&quorum) {
            return Err((
                "--witness-quorum",
                format!(
                    "must be 1 to the {} witness keys given; got {quorum}",
                    verifiers.len()
                ),
            ));
        }
        Ok(Some(Self { verifiers, quorum }))
    }

    pub fn quorum(&self) -> usize {
        self.quorum
    }

    pub fn len(&self) -> usize {
        self.verifiers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.verifiers.is_empty()
    }

    /// The names of the trusted witnesses whose cosignature of `note` (a
    /// signed checkpoint) verifies, each once.
    pub fn vouching(&self, note: &str) -> Vec<String> {
        self.verifiers
            .iter()
            .filter(|v| v.verify_note(note).is_some())
            .map(|v| v.name().to_owned())
            .collect()
    }

    /// Whether `note` carries the quorum's cosignatures.
    pub fn trusts(&self, note: &str) -> bool {
        self.vouching(note).len() >= self.quorum
    }
}
