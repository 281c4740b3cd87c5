// Reads one JSON request per line {server_seed, client_seed, nonce, game} on
// stdin and prints {server_seed_hash, deal} per line: lets the Rust suite
// cross-check the browser implementation on random rounds.
import { createInterface } from "node:readline";
import { deal } from "../fairdeal-v1.mjs";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  const out = await deal({ serverSeed: req.server_seed, clientSeed: req.client_seed, nonce: req.nonce, game: req.game });
  process.stdout.write(JSON.stringify({ server_seed_hash: out.server_seed_hash, deal: out.deal }) + "\n");
}
