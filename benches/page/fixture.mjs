// A revealed seed pair of N hold'em rounds on a running service, made
// through the public API (the reproducible fixture of the page's
// benchmark; nothing is committed): a pair, N deals (32 at a time), with
// `--interleave K` K other pairs dealt between its rounds (a busy log), then
// a rotation once the service has closed the rounds (start it with
// `--round-timeout 1`), which reveals the seed. Prints the pair's id.
//
//   node benches/page/fixture.mjs BASE KEY ROUNDS [--interleave K]
const [base, key, roundsText, ...rest] = process.argv.slice(2);
const rounds = Number(roundsText);
const interleave = rest[0] === "--interleave" ? Number(rest[1]) : 0;
if (!base || !key || !Number.isInteger(rounds) || rounds < 1) {
  console.error("usage: node benches/page/fixture.mjs BASE KEY ROUNDS [--interleave K]");
  process.exit(2);
}
const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };

async function call(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.ok) return JSON.parse(text);
    if ((response.status === 503 || response.status === 429) && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const error = new Error(`${method} ${path}: ${response.status} ${text}`);
    error.status = response.status;
    throw error;
  }
}

async function activePair(seed) {
  const pair = await call("POST", "/v1/seed-pairs");
  await call("PUT", `/v1/seed-pairs/${pair.id}/client-seed`, { client_seed: seed });
  return pair.id;
}

const started = Date.now();
const pair = await activePair(`bench ${rounds} ${started}`);
const others = [];
for (let i = 0; i < interleave; i++) others.push(await activePair(`bench other ${i} ${started}`));
const game = { type: "holdem", players: 6 };
// Each worker deals the pair's next round, then one on each other pair, so
// the log interleaves them; 32 workers keep the service's batches full.
let dealt = 0;
async function worker() {
  while (dealt < rounds) {
    const n = ++dealt;
    if (n % 10000 === 0) console.error(`dealing round ${n} of ${rounds}`);
    await call("POST", `/v1/seed-pairs/${pair}/rounds`, { game });
    for (const other of others) await call("POST", `/v1/seed-pairs/${other}/rounds`, { game });
  }
}
await Promise.all(Array.from({ length: 32 }, worker));
// The service closes rounds in play after --round-timeout; then rotate.
for (;;) {
  try {
    await call("POST", `/v1/seed-pairs/${pair}/rotate`, { client_seed: `bench next ${started}` });
    break;
  } catch (error) {
    if (error.status !== 409) throw error;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
// Every entry of the pair in a checkpoint before the page reads it.
const listed = await call("GET", `/v1/seed-pairs/${pair}`);
for (;;) {
  const evidence = await call("GET", `/v1/seed-pairs/${pair}/evidence?limit=1&after=${rounds - 2}`);
  if (evidence.rounds.length && evidence.rounds.every((r) => r.in_checkpoint)) break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
console.error(`pair ${pair}: ${listed.next_nonce} rounds, ${listed.status}, made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(pair);
