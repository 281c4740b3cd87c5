#!/usr/bin/env bash
# Writes the seed inputs of every fuzz target into corpus/<target>/ (git-ignored).
# Run from the repository root: bash fuzz/seed_corpus.sh
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
