#!/usr/bin/env bash
# Writes the seed inputs of every fuzz target into corpus/<target>/ (next to
# the minimised corpora kept there: a seed already kept is written again
# under its seed- name). Run from the repository root: bash fuzz/seed_corpus.sh
set -euo pipefail
cd "$(dirname "$0")"

put() { # put TARGET NAME TEXT (printf-escaped)
    mkdir -p "corpus/$1"
    printf -- "$3" > "corpus/$1/seed-$2"
}

seed_hex=00000000000000000000000000000000000000000000000000000000000000a5
hash_hex=372b5feb5ebce6ffd6156f0fe81bc268984971f7d138e9fb31386c7f0d195b4e
key=fdk_0123456789abcdef_$(printf 'ab%.0s' $(seq 32))

put client_seed plain 'player 0'
put client_seed max "$(printf 'x%.0s' $(seq 64))"
put client_seed cards '\xf0\x9f\x82\xa1\xf0\x9f\x82\xa1'
put client_seed control 'ab\ncd'
put client_seed c1 'a\xc2\x85'

put server_seed seed "$seed_hex"
put server_seed upper "$(printf 'AB%.0s' $(seq 32))"
put server_seed short "${hash_hex:1}"
put server_seed nonce_max '18446744073709551615'
put server_seed nonce_over '18446744073709551616'
put server_seed plus '+1'

put game_json holdem '{"type":"holdem","players":6}'
put game_json omaha '{"type":"omaha","players":11}'
put game_json deck '{"type":"deck","decks":8}'
put game_json hands '{"type":"hands","players":4,"cards":5,"decks":1}'
put game_json deal_board '{"hands":[["4c","Ts"],["Qc","9d"]],"board":["Js","Th","9h","5d","6h"],"burns":["6s","Kh","7h"]}'
put game_json deal_rest '{"hands":[["5h","Jh"]],"rest":["8d","4c"]}'
put game_json deal_deck '{"deck":["Td","6s","Ah"]}'

put api_bodies round '\x00{"game":{"type":"holdem","players":6}}'
put api_bodies verify "\\x01{\"server_seed\":\"$seed_hex\",\"client_seed\":\"player 0\",\"nonce\":\"3\",\"game\":{\"type\":\"hands\",\"players\":4,\"cards\":5}}"
put api_bodies verify_number "\\x01{\"server_seed\":\"$seed_hex\",\"client_seed\":\"player 0\",\"nonce\":18446744073709551615,\"game\":{\"type\":\"deck\",\"decks\":8}}"
put api_bodies client_seed '\x02{"client_seed":"my own lucky seed"}'
put api_bodies pair '\x03{"label":"table-7"}'
put api_bodies pair_empty '\x03{}'

put hand_history holdem 'As Kd | 7h 8h 9c Tc Jd'
put hand_history hole 'As Kd'
put hand_history five 'As Kd Qh 7c 2s'
put hand_history file '# a history\n\nAs Kd | 7h 8h 9c Tc Jd\nQs Qd\n2c 3c 4c 5c 6c\n'

put authorization bearer "Bearer $key"
put authorization lower "bearer   $key  "
put authorization bare "$key"

put cursors listing '1763769600000.5f0c9a7e-8d1b-4c3e-9a2f-0b1c2d3e4f50'
put cursors export '42'
put cursors negative '-1'

# The witness, cosignature and chain targets' fixed keys, as their targets
# make them: the log key is seed 07…07 for fuzz.example/log, the cosigner
# seed 09…09 for fuzz.example/witness. NOTE5 is a checkpoint of size 5 that
# the log key signed, COSIG that cosigner's cosignature of its body at
# 1764374400 (both Ed25519, deterministic).
log_vkey='fuzz.example/log+44c33050+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs'
w_vkey='fuzz.example/witness+2af1aac1+BP0XJDhaoMdbZPt4zWAvodmR/ev3axPFjtcC6sg16fYY'
root='k4ULcHWF5ATklRo93B8Fo0s9T1/AgdYW9G2KLo8cjmg='
body5="fuzz.example/log\n5\n$root\n"
note5="$body5\n\xe2\x80\x94 fuzz.example/log RMMwUPPCX2fVm0gDfXJ7hceLkOQVhwU+rJFhIoxHA0pCDHnvH8xx1DbrYvDYVaCdbQgK3KXuJj3AjYEGMenUQ044tQw=\n"
cosig='\xe2\x80\x94 fuzz.example/witness KvGqwQAAAABpKjeALmqRd/MjWfJJDHBB5RknkDU9J9yibLApRTp4mweIINW0YCJCPCN4YYTi6GKbXIje4QXs8BSjZnjZ1xr+a2pVCw==\n'

# witness_add_checkpoint: requests separated by NUL; a segment's first byte
# says how its request is made (0 as sent, 1 signed by the log key, 2 an
# honest log grown, 3 forked).
put witness_add_checkpoint sent "\x00old 0\n\n$note5"
put witness_add_checkpoint sent_twice "\x00old 0\n\n$note5\x00\x00old 5\n\n$note5"
put witness_add_checkpoint sent_cosigned "\x00old 0\n\n$note5$cosig"
put witness_add_checkpoint signed "\x01old 0\n\n$body5"
put witness_add_checkpoint signed_ext "\x01old 0\n\nfuzz.example/log\n7\n$root\nextension line\n"
put witness_add_checkpoint signed_proof "\x01old 3\n$root\n$root\n\n$body5"
put witness_add_checkpoint grow "\x02a\nb\nc\x00\x02d\ne\x00\x02f"
put witness_add_checkpoint fork "\x02a\nb\nc\x00\x03d\x00\x02e"
put witness_add_checkpoint grow_then_sent "\x02a\x00\x00old 1\n\n$note5"

# cosignature: the first byte picks a vkey or witness (0), a note (1), a
# body to cosign and change (2), a stored witness set (3).
put cosignature vkey "\x00$w_vkey"
put cosignature vkey_upper "\x00fuzz.example/witness+2AF1AAC1+BP0XJDhaoMdbZPt4zWAvodmR/ev3axPFjtcC6sg16fYY"
put cosignature log_vkey "\x00$log_vkey"
put cosignature witness "\x00$w_vkey@https://witness.example/w/"
put cosignature witness_http "\x00 $w_vkey @http://127.0.0.1:7380"
put cosignature note "\x01$note5$cosig"
put cosignature note_log_only "\x01$note5"
put cosignature cosign '\x02\x00\x00\x00\x00\x69\x2a\x37\x80\x00\x07\x01\x41fuzz.example/log\n5\nroot\n'
put cosignature cosign_line '\x02\x7f\xff\xff\xff\xff\xff\xff\xff\x00\x20\x00\x42body\n'
put cosignature setting "\x03{\"quorum\":1,\"witnesses\":[{\"url\":\"https://witness.example\",\"vkey\":\"$w_vkey\"}]}"
put cosignature setting_all "\x03{\"witnesses\":[{\"url\":\"http://a.example\",\"vkey\":\"$w_vkey\"}]}"
put cosignature setting_empty '\x03{"witnesses":[]}'

# chain_fields: flags, a tip (32 bytes), a raw length (8), a small length,
# a round and a bit to change, then operations (2 bits a kind: round,
# round seed, reveal; the rest a variant).
tip='\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04'
put chain_fields honest "\x0a$tip\x00\x00\x00\x00\x00\x00\x00\x05\x05\x02\x01\x00\x00\x01\x00\x01\x01\x00\x01\x00\x01\x02"
put chain_fields max_length "\x0d$tip\x00\x00\x00\x00\x01\x00\x00\x00\x05\x02\x01\x00\x01\x00\x01"
put chain_fields over_length "\x0d$tip\x00\x00\x00\x00\x01\x00\x00\x01\x05\x02\x01\x00\x01"
put chain_fields zero_length "\x05$tip\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x01\x02"
put chain_fields bad_seed "\x02$tip\x00\x00\x00\x00\x00\x00\x00\x03\x03\x01\x07\x00\x00\x15\x01\x02"
put chain_fields early_reveal "\x02$tip\x00\x00\x00\x00\x00\x00\x00\x03\x03\x01\x07\x00\x00\x01\x02"

# The log readers: a checkpoint (body alone, and a signed one), bundles,
# a log of entries (one a line), texts.
put log_checkpoint body "$body5"
put log_checkpoint note "$note5"
put log_checkpoint empty 'fuzz.example/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n'
put log_bundle two '\x00\x03abc\x00\x00'
put log_bundle one '\x00\x05hello'
pair='00000000-0000-4000-8000-000000000001'
put log_checker pair "{\"type\":\"commit\",\"seed_pair\":\"$pair\",\"server_seed_hash\":\"$(printf 'ab%.0s' $(seq 32))\",\"next_server_seed_hash\":\"$(printf 'cd%.0s' $(seq 32))\",\"time\":\"2026-11-23T00:00:00Z\"}\n{\"type\":\"client_seed\",\"seed_pair\":\"$pair\",\"client_seed_sha256\":\"$(printf 'ef%.0s' $(seq 32))\",\"time\":\"2026-11-23T00:00:00Z\"}\n{\"type\":\"round\",\"seed_pair\":\"$pair\",\"round\":\"r0\",\"nonce\":0,\"game\":{\"type\":\"deck\"},\"time\":\"2026-11-23T00:00:00Z\"}\n{\"type\":\"reveal\",\"seed_pair\":\"$pair\",\"server_seed\":\"$seed_hex\",\"successor\":null,\"time\":\"2026-11-23T00:00:01Z\"}"
put log_checker witness_set "{\"quorum\":1,\"time\":\"t\",\"type\":\"witness_set\",\"witnesses\":[{\"url\":\"https://w.example\",\"vkey\":\"$w_vkey\"}]}"
put seed_text plain 'player 0'
put seed_text invisible 'a\xe2\x80\x8bb'
put seed_text combining 'c\xcc\xa3ard'
put seed_text lookalike '\xd0\xb0pple'

# Real export lines, from the example that writes a fair export (its output
# is the same in any build profile; FAIR_EXPORT may name a binary already built).
mkdir -p corpus/export_line
export_file=$(mktemp)
trap 'rm -f "$export_file"' EXIT
if [ -n "${FAIR_EXPORT:-}" ]; then
    "$FAIR_EXPORT" 2 3
else
    (cd .. && cargo run --quiet --release --example fair_export -- 2 3)
fi > "$export_file"
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '%s\n' "$line" > "corpus/export_line/line-$i"
done < "$export_file"
# Whole records within 4096 bytes: the first pair with its three rounds, and
# the first pair with one round, each followed by the end line.
{ sed -n 1,4p "$export_file"; tail -n 1 "$export_file"; } > corpus/export_line/pair-end
{ sed -n 1,2p "$export_file"; tail -n 1 "$export_file"; } > corpus/export_line/pair-round-end
