"""The README session through the Python client generated from openapi.yaml:
a pair, the player's client seed, a deal with an Idempotency-Key (and its
retry), the close, the rotation, and the revealed round read back and held to
its commitment. Usage: readme_session.py BASE_URL API_KEY (the generated
package `fairdeal_client` on the path). Exits non-zero on any mismatch."""

import hashlib
import sys
import time

from fairdeal_client import AuthenticatedClient, Client
from fairdeal_client.api.rounds import rounds_close, rounds_create, rounds_get, seed_pairs_rounds
from fairdeal_client.api.seed_pairs import seed_pairs_create, seed_pairs_get, seed_pairs_rotate, seed_pairs_set_client_seed
from fairdeal_client.models import ClientSeedRequest, CreatePairRequest, CreateRoundRequest, HoldemGame, HoldemGameType, Problem, RotateRequest


def main(base, key):
    operator = AuthenticatedClient(base_url=base, token=key)
    public = Client(base_url=base)
    stamp = time.time_ns()

    # As the README creates a pair: no body at all.
    pair = seed_pairs_create.sync(client=operator)
    if isinstance(pair, Problem):
        sys.exit(f"create a pair: {pair.title}: {pair.detail}")
    # And with one: a label.
    labelled = seed_pairs_create.sync(client=operator, body=CreatePairRequest(label=f"table {stamp}"))
    if isinstance(labelled, Problem) or labelled.label != f"table {stamp}":
        sys.exit(f"create a labelled pair: {labelled!r}")
    commitment = pair.server_seed_hash
    pair = seed_pairs_set_client_seed.sync(
        pair.id, client=operator, body=ClientSeedRequest(client_seed=f"chosen by the player {stamp}")
    )
    if isinstance(pair, Problem) or pair.status != "active":
        sys.exit(f"set the client seed: {pair!r}")

    game = CreateRoundRequest(game=HoldemGame(type_=HoldemGameType.HOLDEM, players=6))
    round_ = rounds_create.sync(pair.id, client=operator, body=game, idempotency_key="hand-1")
    retry = rounds_create.sync(pair.id, client=operator, body=game, idempotency_key="hand-1")
    if isinstance(round_, Problem) or isinstance(retry, Problem) or retry.id != round_.id:
        sys.exit(f"deal, and its retry: {round_!r} / {retry!r}")
    closed = rounds_close.sync(round_.id, client=operator)
    if isinstance(closed, Problem):
        sys.exit(f"close: {closed.title}")

    # The typed error: a second client seed is a 409 of its own type.
    again = seed_pairs_set_client_seed.sync(
        pair.id, client=operator, body=ClientSeedRequest(client_seed="another")
    )
    if not isinstance(again, Problem) or again.type_ != "/problems/client-seed-already-set":
        sys.exit(f"a second client seed: {again!r}")

    rotation = seed_pairs_rotate.sync(
        pair.id, client=operator, body=RotateRequest(client_seed=f"next one {stamp}")
    )
    if isinstance(rotation, Problem):
        sys.exit(f"rotate: {rotation.title}: {rotation.detail}")

    revealed = seed_pairs_get.sync(pair.id, client=public)
    seed = revealed.server_seed
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        sys.exit("the revealed seed does not hash to the commitment")
    page = seed_pairs_rounds.sync(pair.id, client=public)
    read = rounds_get.sync(round_.id, client=public)
    if [r.id for r in page.rounds] != [round_.id] or read.server_seed != seed or read.deal is None:
        sys.exit(f"the revealed round: {read!r}")
    print(f"README session through the generated client: pair {pair.id}, round {round_.id} revealed and held to its commitment")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
